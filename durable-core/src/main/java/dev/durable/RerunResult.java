package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What an operator's rerun of one instance did ({@link DurableClient#rerun(long, String, Object, String)}).
 *
 * @param instanceId the instance
 * @param outcome    rerun, or why not
 * @param status     the status the instance had when the rerun judged it; null when there is no such instance
 */
public record RerunResult(long instanceId, Rerun outcome, @Nullable InstanceStatus status) {

    /** What became of a rerun. */
    public enum Rerun {
        /** The ended instance is runnable again at the chosen step, with attempt 0. */
        RERUN,
        /** No instance has this id; nothing was written. */
        REFUSED_UNKNOWN_INSTANCE,
        /** The instance has not ended (it runs, waits or is suspended): nothing was written. */
        REFUSED_NOT_ENDED;

        /** The lower-case name: this constant's one spelling outside Java code, in JSON and the actuator. */
        @JsonValue
        public String label() {
            return Labels.of(this);
        }

        /**
         * The constant spelled {@code label}.
         *
         * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
         */
        @JsonCreator
        public static Rerun fromLabel(String label) {
            return Labels.parse(Rerun.class, label);
        }
    }

    /** Whether the instance runs again because of this rerun. */
    public boolean isRerun() {
        return outcome == Rerun.RERUN;
    }
}
