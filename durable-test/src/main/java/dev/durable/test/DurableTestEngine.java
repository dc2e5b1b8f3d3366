package dev.durable.test;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.SignalResult;
import dev.durable.jdbc.DurableSchema;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineDriver;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A durable engine a test drives, on the application's real PostgreSQL, with a clock the test moves
 * (docs/DESIGN.md, "Time in tests"). Nothing runs by itself, not even a started instance's first step:
 * {@link #runDue()} runs every step that is due now, and the steps those runs make due (children, signals sent by
 * steps, continuations), until the engine is idle; {@link #runOneStep(long)} runs one instance's due step;
 * {@link #advance(Duration)} moves durable's time forward, firing on the way, in order, the retry delays, timers,
 * await deadlines and schedule ticks that fall due, each with its steps run. A simulated week takes milliseconds.
 *
 * <pre>{@code
 * try (DurableTestEngine durable = DurableTestEngine.builder(dataSource, MachineRegistry.of(order)).start()) {
 *     long id = durable.client().start("order", new Order(42)).id();
 *     durable.runDue();
 *     durable.advance(Duration.ofDays(7));
 *     DurableAssertions.assertThat(durable.instance(id)).isDone();
 * }
 * }</pre>
 *
 * <p>The kit owns the schema while it runs: it refuses to start on a schema that live nodes use (a row of
 * {@code durable_node} renewed within the last lease by a node not started by the kit), since their reapers and
 * sweeps would act in real time on rows the kit moves in shifted time. It keeps its shift in the schema's one-row
 * table {@code durable_test_clock}, which it creates; production engines never read it.
 */
public final class DurableTestEngine implements AutoCloseable {

    /** The node name of every engine the kit starts: its registrations are not counted as live nodes. */
    public static final String NODE_NAME = "durable-test";
    /** The default bound on {@link #runDue()}'s rounds. */
    public static final int DEFAULT_MAX_ROUNDS = 10_000;

    private static final Duration LOOK_AGAIN = Duration.ofMillis(1);

    private final EngineDriver driver;
    private final JdbcTemplate jdbc;
    private final String schema;
    private final int maxRounds;

    private DurableTestEngine(EngineDriver driver, JdbcTemplate jdbc, String schema, int maxRounds) {
        this.driver = driver;
        this.jdbc = jdbc;
        this.schema = schema;
        this.maxRounds = maxRounds;
    }

    /**
     * Prepares {@code schema} for an engine on the test clock that a framework builds itself (the Spring Boot starter
     * does, with {@code EngineDriver.onTestClock} in a customizer): refuses it if live nodes use it, and creates the
     * test clock. Call it before that engine runs a statement, then wrap the engine with {@link #of}.
     *
     * @throws IllegalStateException if live nodes use the schema
     */
    public static void prepare(DataSource dataSource, String schema, Duration lease) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE SCHEMA IF NOT EXISTS " + DurableSchema.named(schema).name());
        boolean registry = Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT to_regclass(? || '.durable_node') IS NOT NULL", Boolean.class, schema));
        if (registry) {
            LiveNodes.refuseIfAny(jdbc, schema, lease);
        }
        jdbc.execute("CREATE TABLE IF NOT EXISTS " + schema + ".durable_test_clock (only_row boolean PRIMARY KEY"
                + " DEFAULT true CHECK (only_row), shift interval NOT NULL)");
        jdbc.update("INSERT INTO " + schema + ".durable_test_clock (shift) VALUES (interval '0')"
                + " ON CONFLICT (only_row) DO NOTHING");
    }

    /**
     * A kit driving {@code engine}, built on the test clock by a framework and started by it (a driven engine's
     * {@code start()} starts no background loop); the schema was {@link #prepare prepared}.
     */
    public static DurableTestEngine of(DurableEngine engine, DataSource dataSource) {
        return new DurableTestEngine(EngineDriver.of(engine), new JdbcTemplate(dataSource),
                engine.settings().schema(), DEFAULT_MAX_ROUNDS);
    }

    /** A builder for a kit on {@code dataSource} running {@code machines}. */
    public static Builder builder(DataSource dataSource, MachineRegistry machines) {
        return new Builder(dataSource, machines);
    }

    /** Starts, signals, cancels and reads instances, as in production. */
    public DurableClient client() {
        return driver.client();
    }

    /** The engine the kit drives (its settings, stats, node id). */
    public DurableEngine engine() {
        return driver.engine();
    }

    /** durable's time now: the database's {@code now()} plus the shift the kit has moved it by. */
    public Instant now() {
        return read("SELECT now() + shift FROM " + schema + ".durable_test_clock");
    }

    /**
     * Runs every step that is due now, and the steps that those runs make due, and returns when the engine is idle:
     * no due runnable instance, no due await deadline or schedule tick, no step running.
     *
     * @return this
     * @throws AssertionError when the engine is still busy after the kit's bound on rounds, naming the instances
     *                        still moving (a machine that keeps itself due forever, or one this engine does not run)
     */
    public DurableTestEngine runDue() {
        driver.holdPicks(false);
        try {
            for (int round = 0; round < maxRounds; round++) {
                if (round > 0 && driver.claims() == 0 && moving().isEmpty()) {
                    return this;
                }
                driver.sweepTimeAndWake();
                LockSupport.parkNanos(LOOK_AGAIN.toNanos());
            }
        } finally {
            holdAndSettle();
        }
        throw new AssertionError("durable-test: the engine was still busy after " + maxRounds
                + " rounds; instances still moving (id machine step status): " + moving());
    }

    /**
     * Runs the step of instance {@code id} that is due now, and only it: a due await deadline of the instance is fired
     * first; the steps it makes due (a next step, children, a parent it wakes) wait for {@link #runDue()}. With
     * {@code inline-next-steps} on, a next due at once continues on the claim, as in production, and runs too.
     *
     * @return the instance after its step
     * @throws IllegalStateException naming the instance's status and step when it has no step due now: it is parked
     *                               (on what, until when), waits for a later time, or has ended
     */
    public TestInstance runOneStep(long id) {
        if (!driver.runOne(id)) {
            TestInstance instance = instance(id);
            DurableInstance row = instance.instance();
            String why = switch (row.status()) {
                case RUNNABLE -> "it is runnable at step '" + row.step() + "' from " + row.eligibleAt()
                        + ", after durable's time now, " + now();
                case AWAITING_SIGNAL -> "it awaits " + (row.awaits() == null ? "its children" : "signal '"
                        + row.awaits() + "'") + " at step '" + row.step() + "'"
                        + (instance.deadline() == null ? "" : " until " + instance.deadline());
                default -> "it is " + row.status().label() + (row.status().isTerminal() ? ""
                        : " at step '" + row.step() + "'");
            };
            throw new IllegalStateException("durable-test: instance " + id + " (" + row.machine()
                    + ") has no step due now: " + why);
        }
        holdAndSettle();
        return instance(id);
    }

    /** Holds the pollers' picks, and waits until the steps already claimed have ended. */
    private void holdAndSettle() {
        driver.holdPicks(true);
        while (driver.claims() > 0) {
            LockSupport.parkNanos(LOOK_AGAIN.toNanos());
        }
    }

    /** Moves durable's time forward by {@code duration}; see {@link #advanceTo(Instant)}. */
    public DurableTestEngine advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("durable-test moves time forward only: " + duration);
        }
        return advanceTo(now().plus(duration));
    }

    /**
     * Moves durable's time forward to {@code target}: runs what is due now, then, in order, jumps to each instant
     * at which something falls due (a delayed step, a retry, an await deadline, a schedule tick) up to
     * {@code target} and runs what is due then, and ends at {@code target} with what is due run.
     *
     * @throws IllegalArgumentException if {@code target} is before durable's time now
     */
    public DurableTestEngine advanceTo(Instant target) {
        Instant now = now();
        if (target.isBefore(now)) {
            throw new IllegalArgumentException("durable-test moves time forward only: " + target + " is before "
                    + now);
        }
        runDue();
        for (Instant next = nextDue(); next != null && !next.isAfter(target); next = nextDue()) {
            setTime(next);
            runDue();
        }
        setTime(target);
        return runDue();
    }

    /** Sends a signal, as {@link DurableClient#signal(long, String, Object)} does, and runs what it made due. */
    public SignalResult signal(long instanceId, String name, @Nullable Object payload) {
        SignalResult result = client().signal(instanceId, name, payload);
        runDue();
        return result;
    }

    /** A snapshot of one instance for assertions: its row, deadline, inbox, history and children. */
    public TestInstance instance(long id) {
        DurableInstance instance = client().find(id)
                .orElseThrow(() -> new AssertionError("durable-test: no instance " + id + " in " + schema));
        Instant deadline = jdbc.query("SELECT deadline FROM " + schema + ".durable_instance WHERE id = ?",
                rs -> rs.next() && rs.getTimestamp(1) != null ? rs.getTimestamp(1).toInstant() : null, id);
        List<String> inbox = jdbc.queryForList("SELECT name FROM " + schema + ".durable_signal"
                + " WHERE instance_id = ? AND consumed_at IS NULL ORDER BY id", String.class, id);
        return new TestInstance(instance, deadline, inbox, client().history(id), client().children(id));
    }

    /** The history of an instance, oldest first. */
    public List<HistoryEntry> history(long id) {
        return client().history(id);
    }

    /** The children of an instance, in the order they were started. */
    public List<DurableInstance> children(long id) {
        return client().children(id);
    }

    /** Stops the engine; the schema and its rows stay. */
    @Override
    public void close() {
        driver.close();
    }

    /**
     * Up to 20 instances that are due or running, as {@code id machine step status}. Due by
     * {@code clock_timestamp()}, read after the statement's snapshot was taken: a row its snapshot sees committed was
     * written by a transaction whose {@code now()}, which a row made due at once carries, came before it. By
     * {@code now()}, taken when the statement began, a step committed in between could look due later, and the
     * engine idle while it is not.
     */
    private List<String> moving() {
        return jdbc.queryForList("""
                WITH clock AS (SELECT clock_timestamp() + shift AS now FROM {schema}.durable_test_clock)
                SELECT id || ' ' || machine || ' ' || step || ' ' || status FROM {schema}.durable_instance, clock
                WHERE (status = 'runnable' AND eligible_at <= clock.now)
                   OR status = 'executing'
                   OR (status = 'awaiting_signal' AND deadline <= clock.now)
                UNION ALL
                SELECT 'schedule ' || name FROM {schema}.durable_schedule, clock
                WHERE NOT paused AND next_fire_at <= clock.now
                LIMIT 20
                """.replace("{schema}", schema), String.class);
    }

    /** The earliest instant after now at which something falls due, or null. */
    private @Nullable Instant nextDue() {
        return read("""
                WITH clock AS (SELECT now() + shift AS now FROM {schema}.durable_test_clock)
                SELECT least(
                    (SELECT min(eligible_at) FROM {schema}.durable_instance, clock
                     WHERE status = 'runnable' AND eligible_at > clock.now AND eligible_at < 'infinity'),
                    (SELECT min(deadline) FROM {schema}.durable_instance, clock
                     WHERE status = 'awaiting_signal' AND deadline > clock.now),
                    (SELECT min(next_fire_at) FROM {schema}.durable_schedule, clock
                     WHERE NOT paused AND next_fire_at > clock.now))
                """.replace("{schema}", schema));
    }

    /** Sets the shift so that durable's time is {@code instant} now (and flows on from there). */
    private void setTime(Instant instant) {
        Instant now = now();
        if (instant.isAfter(now)) {
            jdbc.update("UPDATE " + schema + ".durable_test_clock SET shift = ?::timestamptz - now()",
                    Timestamp.from(instant));
        }
    }

    private @Nullable Instant read(String sql) {
        OffsetDateTime time = jdbc.queryForObject(sql, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }

    /** Builds and starts a {@link DurableTestEngine}. */
    public static final class Builder {

        private final DataSource dataSource;
        private final MachineRegistry machines;
        private EngineSettings settings = EngineSettings.defaults();
        private JsonCodec codec = new JacksonJsonCodec();
        private int maxRounds = DEFAULT_MAX_ROUNDS;

        private Builder(DataSource dataSource, MachineRegistry machines) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
            this.machines = Objects.requireNonNull(machines, "machines must not be null");
        }

        /**
         * The engine's settings (schema, queues, retry policy, ...). The kit names the node {@value #NODE_NAME}
         * and configures the queue of every machine the settings leave out, with 8 slots.
         */
        public Builder settings(EngineSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings must not be null");
            return this;
        }

        public Builder jsonCodec(JsonCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec must not be null");
            return this;
        }

        /** The bound on {@link #runDue()}'s rounds (one round is a sweep, a wake and a look: about a millisecond). */
        public Builder maxRounds(int maxRounds) {
            if (maxRounds < 1) {
                throw new IllegalArgumentException("maxRounds must be at least 1: " + maxRounds);
            }
            this.maxRounds = maxRounds;
            return this;
        }

        /**
         * Installs durable's tables if the schema has none, checks that no live node uses the schema, creates the
         * test clock, and starts the engine with no background loop.
         *
         * @throws IllegalStateException if live nodes use the schema
         */
        public DurableTestEngine start() {
            EngineSettings.Builder adjusted = settings.toBuilder().nodeName(NODE_NAME);
            for (MachineDefinition machine : machines.all()) {
                if (!settings.queues().containsKey(machine.queue())) {
                    adjusted.queue(machine.queue(), QueueSettings.concurrency(8));
                }
            }
            EngineSettings engineSettings = adjusted.build();
            String schema = engineSettings.schema();
            DurableSchema durableSchema = DurableSchema.named(schema);
            if (!durableSchema.isInstalled(dataSource)) {
                durableSchema.migrate(dataSource);
            }
            prepare(dataSource, schema, engineSettings.leaseTtl());
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            EngineDriver driver = EngineDriver.build(DurableEngine.builder(dataSource, machines)
                    .settings(engineSettings).jsonCodec(codec));
            driver.start();
            return new DurableTestEngine(driver, jdbc, schema, maxRounds);
        }
    }
}
