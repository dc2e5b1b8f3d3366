package dev.durable.runtime.support;

import dev.durable.runtime.NodeState;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's state: its lifecycle ({@code STARTING -> RUNNING -> DRAINING -> STOPPED}) and, while running,
 * {@code DEGRADED} as long as some component cannot reach the database. Transitions are logged and reported.
 */
public final class NodeLifecycle {

    private static final Logger log = LoggerFactory.getLogger(NodeLifecycle.class);

    private final String nodeId;
    private final EngineEvents events;
    private final Map<String, Throwable> unreachableFrom = new ConcurrentHashMap<>();
    private NodeState lifecycle = NodeState.STARTING;

    public NodeLifecycle(String nodeId, EngineEvents events) {
        this.nodeId = nodeId;
        this.events = events;
    }

    public synchronized NodeState state() {
        return lifecycle == NodeState.RUNNING && !unreachableFrom.isEmpty() ? NodeState.DEGRADED : lifecycle;
    }

    public void moveTo(NodeState next) {
        change(() -> lifecycle = next);
    }

    /** {@code component} could not reach the database. */
    public void databaseFailed(String component, Throwable error) {
        if (!unreachableFrom.containsKey(component)) {
            change(() -> unreachableFrom.put(component, error));
        } else {
            unreachableFrom.put(component, error);
        }
    }

    /** {@code component} reached the database. */
    public void databaseOk(String component) {
        if (unreachableFrom.containsKey(component)) {
            change(() -> unreachableFrom.remove(component));
        }
    }

    /** The last error of a component that cannot reach the database, if any. */
    public Optional<Throwable> databaseError() {
        return unreachableFrom.values().stream().findFirst();
    }

    private void change(Runnable mutation) {
        NodeState before;
        NodeState after;
        synchronized (this) {
            before = state();
            mutation.run();
            after = state();
        }
        if (before != after) {
            if (after == NodeState.DEGRADED) {
                log.warn("durable node {}: {} -> {} (database unreachable: {})", nodeId, before, after,
                        databaseError().map(Throwable::toString).orElse("?"));
            } else {
                log.info("durable node {}: {} -> {}", nodeId, before, after);
            }
            events.stateChanged(before, after);
        }
    }
}
