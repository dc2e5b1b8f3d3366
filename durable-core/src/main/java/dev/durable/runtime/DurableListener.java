package dev.durable.runtime;

import dev.durable.CancelResult;
import dev.durable.SignalResult;

/**
 * Hears what the engine does; for metrics and logging. Called on engine threads, so implementations must be quick
 * and must not block; an exception thrown here is logged and otherwise ignored. Every method does nothing by
 * default.
 */
public interface DurableListener {

    DurableListener NONE = new DurableListener() {
    };

    /**
     * A pick claimed {@code count} rows of {@code queue}, or a local start claimed the rows it inserted
     * (docs/DESIGN.md, "Local starts").
     */
    default void picked(String queue, int count) {
    }

    /**
     * A pick of {@code queue} claimed less than it asked for because of the queue's cluster-wide limits
     * (docs/DESIGN.md, "Cluster-wide limits").
     */
    default void heldBack(String queue) {
    }

    /** A step finished and its outcome was written, fenced off, abandoned or discarded. */
    default void stepFinished(StepEvent event) {
    }

    /** The reaper returned {@code count} expired claims to runnable. */
    default void reaped(int count) {
    }

    /** A running step's lease was found lost by the heartbeat; the step is being interrupted. */
    default void leaseLost(long instanceId) {
    }

    /** A signal was delivered, deduplicated or refused. */
    default void signalSent(SignalResult result) {
    }

    /** A cancel made through this node was applied, found the instance already cancelled, or was refused. */
    default void cancelSent(CancelResult result) {
    }

    /** A step that was interrupted has not ended within the zombie grace period. */
    default void zombieDetected(long instanceId, String machine, String step) {
    }

    /**
     * This node suspended an instance instead of running its step: the stored state would lose properties when read as
     * the state type, or its upcast failed ({@code reason}, also in the instance's last error). Heard once per
     * suspension, when it commits (docs/DESIGN.md, "Suspension").
     */
    default void instanceSuspended(long instanceId, String machine, int version, String step, String reason) {
    }

    /** The node changed state. */
    default void stateChanged(NodeState from, NodeState to) {
    }

    /** A background component (poller, heartbeat, reaper, committer) failed and will be retried. */
    default void componentFailed(String component, Throwable error) {
    }
}
