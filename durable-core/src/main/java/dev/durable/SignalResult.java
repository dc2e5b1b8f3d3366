package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What became of a signal.
 *
 * @param instanceId   the addressed instance; for a signal addressed by unique key, the instance holding the key, or 0
 *                     when none did
 * @param delivery     whether the signal was stored, deduplicated or refused
 * @param wokeInstance whether the instance was parked on this signal's name and is now runnable
 */
public record SignalResult(long instanceId, Delivery delivery, boolean wokeInstance) {

    public enum Delivery {
        /** Stored in the instance's inbox. */
        DELIVERED,
        /**
         * An earlier signal with the same dedup key reached this instance (it may since have been consumed, and the
         * instance may have ended); nothing was stored.
         */
        DEDUPLICATED,
        /** No instance has this id; nothing was stored. */
        REFUSED_UNKNOWN_INSTANCE,
        /**
         * The instance ended (done, failed or cancelled) and never had a signal with this dedup key; nothing was
         * stored.
         */
        REFUSED_TERMINAL_INSTANCE,
        /**
         * The signal was addressed by unique key ({@link DurableClient#signalByUniqueKey}) and no instance holds the
         * key; nothing was stored.
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
        public static Delivery fromLabel(String label) {
            return Labels.parse(Delivery.class, label);
        }
    }

    public boolean isDelivered() {
        return delivery == Delivery.DELIVERED;
    }

    public boolean isRefused() {
        return delivery == Delivery.REFUSED_UNKNOWN_INSTANCE || delivery == Delivery.REFUSED_TERMINAL_INSTANCE
                || delivery == Delivery.REFUSED_NO_KEY_HOLDER;
    }

    /** This result, or a {@link SignalRefusedException} if the signal was refused. */
    public SignalResult orThrow() {
        if (isRefused()) {
            throw new SignalRefusedException(this);
        }
        return this;
    }
}
