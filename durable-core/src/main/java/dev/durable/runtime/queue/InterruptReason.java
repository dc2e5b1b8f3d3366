package dev.durable.runtime.queue;

/** Why a step's thread was interrupted, or a claim waiting for a slot ended without running. */
enum InterruptReason {
    /** The step ran past its timeout. */
    TIMEOUT,
    /** The claim's lease is gone: the row was reaped, or its instance cancelled elsewhere. */
    LEASE_LOST,
    /** The instance was cancelled. */
    CANCELLED,
    /** The node stopped and handed the row back. */
    SHUTDOWN
}
