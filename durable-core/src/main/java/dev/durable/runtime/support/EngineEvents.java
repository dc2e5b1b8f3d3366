package dev.durable.runtime.support;

import dev.durable.CancelResult;
import dev.durable.SignalResult;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.NodeState;
import dev.durable.runtime.StepEvent;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where components report what happened: updates the {@link EngineCounters} and tells the user's listener. */
public final class EngineEvents {

    private static final Logger log = LoggerFactory.getLogger(EngineEvents.class);

    private final EngineCounters stats;
    private final DurableListener listener;

    /** Events counted in counters of their own: for the parts a test builds alone. */
    public EngineEvents(DurableListener listener) {
        this(listener, new EngineCounters());
    }

    /** @param stats the counters the engine's {@code EngineStats} reads */
    public EngineEvents(DurableListener listener, EngineCounters stats) {
        this.listener = listener;
        this.stats = stats;
    }

    public void picked(String queue, int count) {
        stats.picks.increment();
        stats.picked.add(count);
        tell(() -> listener.picked(queue, count));
    }

    /** A cluster-wide limit held a pick of {@code queue} back. */
    public void heldBack(String queue) {
        tell(() -> listener.heldBack(queue));
    }

    public void stepFinished(StepEvent event) {
        stats.stepsFinished.increment();
        switch (event.fate()) {
            case COMMITTED -> stats.outcomesCommitted.increment();
            case FENCED -> stats.outcomesFenced.increment();
            case ABANDONED -> stats.outcomesAbandoned.increment();
            case DISCARDED -> stats.outcomesDiscarded.increment();
        }
        tell(() -> listener.stepFinished(event));
    }

    public void outcomesFlushed() {
        stats.outcomeFlushes.increment();
    }

    public void reaped(int count) {
        stats.reaped.add(count);
        stats.reaperLastRun.set(Instant.now());
        if (count > 0) {
            tell(() -> listener.reaped(count));
        }
    }

    public void deadlinesFired(int count) {
        stats.deadlinesFired.add(count);
    }

    public void scheduleFired(int started, boolean missedTicks) {
        stats.scheduledStarts.add(started);
        if (missedTicks) {
            stats.scheduleMisfires.increment();
        }
    }

    public void retentionDeleted(int count) {
        stats.retentionDeleted.add(count);
    }

    public void released(int count) {
        stats.released.add(count);
    }

    public void leaseLost(long instanceId) {
        stats.leasesLost.increment();
        tell(() -> listener.leaseLost(instanceId));
    }

    public void signalSent(SignalResult result) {
        switch (result.delivery()) {
            case DELIVERED -> stats.signalsDelivered.increment();
            case DEDUPLICATED -> stats.signalsDeduplicated.increment();
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_TERMINAL_INSTANCE, REFUSED_NO_KEY_HOLDER, REFUSED_UNDECLARED_SIGNAL,
                    REFUSED_WRONG_PAYLOAD -> stats.signalsRefused.increment();
        }
        tell(() -> listener.signalSent(result));
    }

    public void cancelSent(CancelResult result) {
        switch (result.outcome()) {
            case CANCELLED -> stats.cancelsApplied.increment();
            case ALREADY_CANCELLED -> stats.cancelsRepeated.increment();
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_TERMINAL_INSTANCE, REFUSED_NO_KEY_HOLDER ->
                    stats.cancelsRefused.increment();
        }
        tell(() -> listener.cancelSent(result));
    }

    public void zombieDetected(long instanceId, String machine, String step) {
        stats.zombiesDetected.increment();
        tell(() -> listener.zombieDetected(instanceId, machine, step));
    }

    public void instanceSuspended(long instanceId, String machine, int version, String step, String reason) {
        stats.instancesSuspended.increment();
        tell(() -> listener.instanceSuspended(instanceId, machine, version, step, reason));
    }

    void stateChanged(NodeState from, NodeState to) {
        tell(() -> listener.stateChanged(from, to));
    }

    public void componentFailed(String component, Throwable error) {
        stats.componentFailures.increment();
        tell(() -> listener.componentFailed(component, error));
    }

    /**
     * Tells the listener, ignoring what it throws (logged): a listener never breaks the engine's bookkeeping. That
     * includes an Error such as a {@link LinkageError} of a listener built against another version; only a
     * {@link VirtualMachineError} (out of memory, stack overflow) goes on.
     */
    private static void tell(Runnable call) {
        try {
            call.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            log.warn("A DurableListener threw; ignored", e);
        }
    }
}
