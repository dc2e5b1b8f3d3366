package dev.durable.runtime;

import dev.durable.CancelResult;
import dev.durable.SignalResult;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where components report what happened: updates {@link EngineStats} and tells the user's listener. */
final class EngineEvents {

    private static final Logger log = LoggerFactory.getLogger(EngineEvents.class);

    private final EngineStats stats = new EngineStats();
    private final DurableListener listener;

    EngineEvents(DurableListener listener) {
        this.listener = listener;
    }

    EngineStats stats() {
        return stats;
    }

    void picked(String queue, int count) {
        stats.picks.increment();
        stats.picked.add(count);
        tell(() -> listener.picked(queue, count));
    }

    void stepFinished(StepEvent event) {
        stats.stepsFinished.increment();
        switch (event.fate()) {
            case COMMITTED -> stats.outcomesCommitted.increment();
            case FENCED -> stats.outcomesFenced.increment();
            case ABANDONED -> stats.outcomesAbandoned.increment();
            case DISCARDED -> stats.outcomesDiscarded.increment();
        }
        tell(() -> listener.stepFinished(event));
    }

    void outcomesFlushed() {
        stats.outcomeFlushes.increment();
    }

    void reaped(int count) {
        stats.reaped.add(count);
        stats.reaperLastRun.set(Instant.now());
        if (count > 0) {
            tell(() -> listener.reaped(count));
        }
    }

    void deadlinesFired(int count) {
        stats.deadlinesFired.add(count);
    }

    void scheduleFired(int started, boolean missedTicks) {
        stats.scheduledStarts.add(started);
        if (missedTicks) {
            stats.scheduleMisfires.increment();
        }
    }

    void retentionDeleted(int count) {
        stats.retentionDeleted.add(count);
    }

    void released(int count) {
        stats.released.add(count);
    }

    void leaseLost(long instanceId) {
        stats.leasesLost.increment();
        tell(() -> listener.leaseLost(instanceId));
    }

    void signalSent(SignalResult result) {
        switch (result.delivery()) {
            case DELIVERED -> stats.signalsDelivered.increment();
            case DEDUPLICATED -> stats.signalsDeduplicated.increment();
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_TERMINAL_INSTANCE, REFUSED_NO_KEY_HOLDER ->
                    stats.signalsRefused.increment();
        }
        tell(() -> listener.signalSent(result));
    }

    void cancelSent(CancelResult result) {
        switch (result.outcome()) {
            case CANCELLED -> stats.cancelsApplied.increment();
            case ALREADY_CANCELLED -> stats.cancelsRepeated.increment();
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_TERMINAL_INSTANCE, REFUSED_NO_KEY_HOLDER ->
                    stats.cancelsRefused.increment();
        }
        tell(() -> listener.cancelSent(result));
    }

    void zombieDetected(long instanceId, String machine, String step) {
        stats.zombiesDetected.increment();
        tell(() -> listener.zombieDetected(instanceId, machine, step));
    }

    void instanceSuspended(long instanceId, String machine, int version, String step, String reason) {
        stats.instancesSuspended.increment();
        tell(() -> listener.instanceSuspended(instanceId, machine, version, step, reason));
    }

    void stateChanged(NodeState from, NodeState to) {
        tell(() -> listener.stateChanged(from, to));
    }

    void componentFailed(String component, Throwable error) {
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
