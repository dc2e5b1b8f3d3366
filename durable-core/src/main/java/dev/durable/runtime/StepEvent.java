package dev.durable.runtime;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One finished step, as reported to {@link DurableListener#stepFinished(StepEvent)}.
 *
 * @param leaseToken the token of the claim the step ran under (see {@link dev.durable.StepContext#leaseToken()})
 * @param outcome  what the step (or its error handler) decided: {@code next}, {@code retry}, {@code await},
 *                 {@code done} or {@code failed}
 * @param write    what became of that decision in the database
 * @param duration from the start of the step to the end of its write
 * @param error    what the step threw (or why it could not run), when the error path was taken
 */
public record StepEvent(long instanceId, String machine, int version, String step, String queue, long leaseToken,
        String outcome, Write write, Duration duration, @Nullable Throwable error) {

    /** What became of a step's outcome. */
    public enum Write {
        /** Committed. */
        APPLIED,
        /** Not written: the claim's lease was lost (reaped, maybe re-claimed elsewhere) before it committed. */
        FENCED,
        /** Not written: the database stayed unreachable; the row is left to the reaper. */
        ABANDONED,
        /** Not written: the row had been released (shutdown) or the step died of an {@link Error}. */
        DISCARDED
    }
}
