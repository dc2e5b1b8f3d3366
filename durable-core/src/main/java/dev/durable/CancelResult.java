package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What became of a {@linkplain DurableClient#cancel(long, String) cancel}.
 *
 * @param instanceId the addressed instance; for a cancel addressed by unique key, the instance holding the key, or 0
 *                   when none did
 * @param outcome    whether the instance was cancelled now, had been before, or the cancel was refused
 * @param status     the instance's status before this cancel: {@code runnable}, {@code executing} or
 *                   {@code awaiting_signal} when it was cancelled now, {@code cancelled} when it had been before,
 *                   {@code done} or {@code failed} when refused for that; {@code null} when there is no such instance
 *                   or no holder of the key
 */
public record CancelResult(long instanceId, Cancellation outcome, @Nullable InstanceStatus status) {

    public enum Cancellation {
        /**
         * The instance is cancelled now: it never runs another step, its unconsumed signals are cleared, and a step
         * it was running is interrupted and its outcome discarded.
         */
        CANCELLED,
        /** The instance was cancelled before; nothing was written. */
        ALREADY_CANCELLED,
        /** No instance has this id; nothing was written. */
        REFUSED_UNKNOWN_INSTANCE,
        /** The instance is done or failed: it ended on its own, and stays as it ended; nothing was written. */
        REFUSED_TERMINAL_INSTANCE,
        /**
         * The cancel was addressed by unique key ({@link DurableClient#cancelByUniqueKey}) and no instance holds the
         * key; nothing was written.
         */
        REFUSED_NO_KEY_HOLDER;

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
        public static Cancellation fromLabel(String label) {
            return Labels.parse(Cancellation.class, label);
        }
    }

    /** Whether the instance is cancelled, by this call or an earlier one. */
    public boolean isCancelled() {
        return outcome == Cancellation.CANCELLED || outcome == Cancellation.ALREADY_CANCELLED;
    }

    public boolean isRefused() {
        return !isCancelled();
    }

    /** This result, or a {@link CancelRefusedException} if the cancel was refused. */
    public CancelResult orThrow() {
        if (isRefused()) {
            throw new CancelRefusedException(this);
        }
        return this;
    }
}
