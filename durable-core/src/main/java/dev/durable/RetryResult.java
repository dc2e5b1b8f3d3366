package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What became of an operator's {@linkplain DurableClient#retryFailed(long) retry} of one instance.
 *
 * @param instanceId the addressed instance
 * @param outcome    whether the instance was retried, resumed, or the retry was refused
 * @param status     the instance's status before this retry: {@code failed} when it was retried, {@code suspended}
 *                   when it was resumed, its status as it stands when refused for not being failed or suspended
 *                   ({@code runnable}, {@code executing}, {@code awaiting_signal}, {@code done} or
 *                   {@code cancelled}); {@code null} when there is no such instance
 */
public record RetryResult(long instanceId, Retry outcome, @Nullable InstanceStatus status) {

    public enum Retry {
        /** The failed instance is runnable again at the step it failed at, with attempt 0. */
        RETRIED,
        /** The suspended instance is runnable again, at the step and attempt it was suspended at. */
        RESUMED,
        /** No instance has this id; nothing was written. */
        REFUSED_UNKNOWN_INSTANCE,
        /**
         * The instance is neither failed nor suspended (it runs, waits, or ended done or cancelled), so there is
         * nothing to retry; nothing was written.
         */
        REFUSED_NOT_FAILED;

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
        public static Retry fromLabel(String label) {
            return Labels.parse(Retry.class, label);
        }
    }

    /** Whether the instance is runnable again because of this retry. */
    public boolean isRetried() {
        return outcome == Retry.RETRIED || outcome == Retry.RESUMED;
    }

    public boolean isRefused() {
        return !isRetried();
    }

    /** This result, or a {@link RetryRefusedException} if the retry was refused. */
    public RetryResult orThrow() {
        if (isRefused()) {
            throw new RetryRefusedException(this);
        }
        return this;
    }
}
