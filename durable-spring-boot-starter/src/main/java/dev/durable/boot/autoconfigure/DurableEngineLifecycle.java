package dev.durable.boot.autoconfigure;

import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.NodeState;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the engine when the context has started and stops it gracefully when the context closes.
 *
 * <p>The phase is that of the web server's graceful shutdown, so that the engine drains (no new picks, running
 * steps finish within {@code durable.shutdown-grace-period}, the rest are released) while the web server finishes
 * its requests, and both are done before the web server and then the {@code DataSource} go away. The stop runs on
 * its own thread, so the two drain at the same time; should the phase time out, the engine bean's destroy method
 * waits for the stop to complete before the {@code DataSource} is closed.
 */
final class DurableEngineLifecycle implements SmartLifecycle {

    /** The phase of Spring Boot's web server graceful shutdown. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private final DurableEngine engine;
    private final @Nullable AnnotatedMachines machines;

    /** @param machines the annotated machines to bind before the start; none when the application replaced them */
    DurableEngineLifecycle(DurableEngine engine, @Nullable AnnotatedMachines machines) {
        this.engine = engine;
        this.machines = machines;
    }

    @Override
    public void start() {
        if (machines != null) {
            machines.bindAll();
        }
        engine.start();
    }

    @Override
    public void stop() {
        engine.stop();
    }

    @Override
    public void stop(Runnable callback) {
        Thread stopping = new Thread(() -> {
            try {
                stop();
            } finally {
                callback.run();
            }
        }, "durable-shutdown");
        stopping.start();
    }

    /** From start until stopped: running, degraded or draining. */
    @Override
    public boolean isRunning() {
        NodeState state = engine.state();
        return state != NodeState.STARTING && state != NodeState.STOPPED;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
