package dev.durable.runtime;

import dev.durable.Outcome;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One finished step, as reported to {@link DurableListener#stepFinished(StepEvent)}.
 *
 * @param leaseToken the token of the claim the step ran under (see {@link dev.durable.StepContext#leaseToken()})
 * @param outcome    what the step (or its error handler) decided; {@link Outcome.Kind#STOP} also when the error
 *                   path failed the instance; {@code null} when the step died of an {@link Error} and decided
 *                   nothing
 * @param fate       what became of that decision in the database
 * @param duration   from the start of the step to the end of its commit
 * @param error      what the step threw (or why it could not run), when the error path was taken
 */
public record StepEvent(long instanceId, String machine, int version, String step, String queue, long leaseToken,
        Outcome.@Nullable Kind outcome, Fate fate, Duration duration, @Nullable Throwable error) {

    /** What became of a step's outcome. */
    public enum Fate {
        /** Committed. */
        COMMITTED,
        /** Not committed: the claim's lease was lost (reaped, maybe re-claimed elsewhere) before it committed. */
        FENCED,
        /** Not committed: the database stayed unreachable; the row is left to the reaper. */
        ABANDONED,
        /** Not committed: the row had been released (shutdown) or the step died of an {@link Error}. */
        DISCARDED;

        /** The lower-case name, as in metrics tags. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
