package dev.durable;

/**
 * What became of a signal.
 *
 * @param instanceId   the addressed instance
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
        REFUSED_TERMINAL_INSTANCE
    }

    public boolean isDelivered() {
        return delivery == Delivery.DELIVERED;
    }

    public boolean isRefused() {
        return delivery == Delivery.REFUSED_UNKNOWN_INSTANCE || delivery == Delivery.REFUSED_TERMINAL_INSTANCE;
    }

    /** This result, or a {@link SignalRefusedException} if the signal was refused. */
    public SignalResult orThrow() {
        if (isRefused()) {
            throw new SignalRefusedException(this);
        }
        return this;
    }
}
