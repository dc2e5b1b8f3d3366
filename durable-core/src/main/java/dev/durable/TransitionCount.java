package dev.durable;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How many history events of one kind a machine's instances recorded at one step since a time, as
 * {@link DurableClient#transitionCounts(String, java.time.Instant)} reads them: the traffic of an edge of the machine's
 * diagram (a {@code next} from {@code step} to {@code nextStep}), or of an end ({@code done}, a {@code stop}, a
 * {@code cancel}) or a loop ({@code retry}, {@code await}).
 *
 * @param step     the step the event was recorded at
 * @param event    what happened there
 * @param nextStep the step a {@code next} moved to, or the step a {@code rerun} chose; null for other events
 * @param status   the status the events left the instances in
 * @param count    how many such events were recorded
 */
public record TransitionCount(String step, HistoryEntry.Event event, @Nullable String nextStep,
        InstanceStatus status, long count) {

    public TransitionCount {
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(status, "status");
    }
}
