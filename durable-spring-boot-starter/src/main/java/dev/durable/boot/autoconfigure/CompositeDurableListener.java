package dev.durable.boot.autoconfigure;

import dev.durable.SignalResult;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.NodeState;
import dev.durable.runtime.StepEvent;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells every {@link DurableListener} bean, in order; one that throws does not keep the others from hearing. */
final class CompositeDurableListener implements DurableListener {

    private static final Logger log = LoggerFactory.getLogger(CompositeDurableListener.class);

    private final List<DurableListener> listeners;

    private CompositeDurableListener(List<DurableListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static DurableListener of(List<DurableListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> DurableListener.NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeDurableListener(listeners);
        };
    }

    @Override
    public void picked(String queue, int count) {
        tell(listener -> listener.picked(queue, count));
    }

    @Override
    public void stepFinished(StepEvent event) {
        tell(listener -> listener.stepFinished(event));
    }

    @Override
    public void reaped(int count) {
        tell(listener -> listener.reaped(count));
    }

    @Override
    public void leaseLost(long instanceId) {
        tell(listener -> listener.leaseLost(instanceId));
    }

    @Override
    public void signalSent(SignalResult result) {
        tell(listener -> listener.signalSent(result));
    }

    @Override
    public void zombieDetected(long instanceId, String machine, String step) {
        tell(listener -> listener.zombieDetected(instanceId, machine, step));
    }

    @Override
    public void stateChanged(NodeState from, NodeState to) {
        tell(listener -> listener.stateChanged(from, to));
    }

    @Override
    public void componentFailed(String component, Throwable error) {
        tell(listener -> listener.componentFailed(component, error));
    }

    /**
     * Tells every listener, whatever an earlier one threw: the engine's own rule for listeners, an Error (say a
     * LinkageError of a listener built against another version) included; only a VirtualMachineError goes on.
     */
    private void tell(Consumer<DurableListener> call) {
        for (DurableListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                log.warn("DurableListener {} threw; ignored", listener, e);
            }
        }
    }
}
