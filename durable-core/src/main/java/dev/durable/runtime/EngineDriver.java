package dev.durable.runtime;

import dev.durable.DurableClient;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.time.AwaitDeadlines;
import dev.durable.runtime.time.RecurringSchedules;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The hook a test kit drives an engine by (the {@code durable-test} module's {@code DurableTestEngine} is built on
 * it; docs/DESIGN.md, "Time in tests"). Not for production: the engine it builds reads time from the schema's test
 * clock, the one row of {@code durable_test_clock} that the kit creates and moves, and it runs none of the
 * background loops that act on time by themselves (heartbeat, reaper, await deadlines, schedules, work probe,
 * retention). The queues' pollers and the committer run as in production, so a step runs through the same code, but
 * the pollers pick, and starts claim their rows, only while the kit lets them ({@link #holdPicks(boolean)}); the kit
 * takes the sweeps' turns itself, while no step runs.
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
        Driven driven = engine.driven();
        driven.deadlines().sweep();
        driven.schedules().sweep();
        driven.owners().wakeAll();
    }

    /**
     * Lets the pollers pick and local starts claim ({@code false}), or holds them ({@code true}: an engine on the test
     * clock starts so, and then runs nothing by itself); either way wakes every poller. Steps already claimed run on.
     */
    public void holdPicks(boolean hold) {
        Driven driven = engine.driven();
        driven.picksHeld().set(hold);
        driven.owners().wakeAll();
    }

    /**
     * Fires the await deadlines that are due on the test clock, then claims instance {@code id} if its step is due, as
     * a pick would, and hands it to its queue to run; it runs on a step thread, its outcome committed as in
     * production. Whether it was claimed: false when the instance is not a due runnable row of a queue and machine
     * version this engine runs.
     */
    public boolean runOne(long id) {
        Driven driven = engine.driven();
        driven.deadlines().sweep();
        return driven.owners().all().values().stream().anyMatch(owner -> owner.runOne(id));
    }

    /** The claims the engine holds: rows waiting for a slot, running, or committing their outcome. */
    public int claims() {
        return engine.claims();
    }

    /** What a driver drives in place of the background loops, and the hold on the pollers' picks. */
    record Driven(AwaitDeadlines deadlines, RecurringSchedules schedules, QueueOwners owners,
            AtomicBoolean picksHeld) {
    }

    /** Stops the engine gracefully and ends its threads. */
    @Override
    public void close() {
        engine.close();
    }
}
