package dev.durable.runtime;

import dev.durable.DurableClient;
import java.util.Objects;

/**
 * The hook a test kit drives an engine by (the {@code durable-test} module's {@code DurableTestEngine} is built on
 * it; docs/DESIGN.md, "Time in tests"). Not for production: the engine it builds reads time from the schema's test
 * clock, the one row of {@code durable_test_clock} that the kit creates and moves, and it runs none of the
 * background loops that act on time by themselves (heartbeat, reaper, await deadlines, schedules, work probe,
 * retention). The queues' pollers and the committer run as in production, so a step runs through the same code; the
 * kit takes the sweeps' turns itself, while no step runs.
 *
 * <p>{@link #build(DurableEngine.Builder)} builds such an engine; a framework that builds the engine itself marks its
 * builder with {@link #onTestClock(DurableEngine.Builder)} and wraps the engine with {@link #of(DurableEngine)}. Such
 * an engine's {@link DurableEngine#start()} also starts no background loop.
 *
 * <p>Production statements are untouched: an engine built with {@link DurableEngine.Builder#build()} sends every
 * statement exactly as written, {@code now()} included.
 */
public final class EngineDriver implements AutoCloseable {

    private final DurableEngine engine;

    private EngineDriver(DurableEngine engine) {
        this.engine = engine;
    }

    /**
     * Builds the engine {@code builder} describes on the schema's test clock. The table {@code durable_test_clock}
     * must exist in the engine's schema, with one row, before the engine runs a statement.
     */
    public static EngineDriver build(DurableEngine.Builder builder) {
        Objects.requireNonNull(builder, "builder must not be null");
        builder.movableClock = true;
        return new EngineDriver(builder.build());
    }

    /**
     * Marks {@code builder} so that the engine it builds runs on the schema's test clock, and its {@code start()}
     * starts no background loop: for a framework that builds the engine itself (the Spring Boot starter, through a
     * {@code DurableCustomizer}). Wrap the engine with {@link #of(DurableEngine)}.
     */
    public static DurableEngine.Builder onTestClock(DurableEngine.Builder builder) {
        Objects.requireNonNull(builder, "builder must not be null");
        builder.movableClock = true;
        return builder;
    }

    /**
     * The driver of an engine built from a builder marked by {@link #onTestClock(DurableEngine.Builder)}.
     *
     * @throws IllegalArgumentException if the engine was built for production
     */
    public static EngineDriver of(DurableEngine engine) {
        if (!engine.onTestClock()) {
            throw new IllegalArgumentException("engine " + engine.nodeId() + " was built for production, not on the"
                    + " test clock (EngineDriver.onTestClock)");
        }
        return new EngineDriver(engine);
    }

    /** Starts the queues' pollers, the committer and the node's registration; no background loop. */
    public void start() {
        engine.start();
    }

    public DurableEngine engine() {
        return engine;
    }

    public DurableClient client() {
        return engine.client();
    }

    /**
     * Fires, on the calling thread, the await deadlines and schedule ticks that are due on the test clock, then wakes
     * the poller of every queue the engine works, so it picks what is due now.
     */
    public void sweepTimeAndWake() {
        engine.sweepTimeAndWake();
    }

    /** The claims the engine holds: rows waiting for a slot, running, or committing their outcome. */
    public int claims() {
        return engine.claims();
    }

    /** Stops the engine gracefully and ends its threads. */
    @Override
    public void close() {
        engine.close();
    }
}
