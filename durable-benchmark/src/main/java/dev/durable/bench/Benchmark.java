package dev.durable.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import dev.durable.runtime.StepEvent;
import dev.durable.runtime.WakeUps;
import dev.durable.runtime.step.StatePatches;
import dev.durable.test.postgres.TestPostgres;
import io.micrometer.observation.ObservationRegistry;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The benchmark of {@code docs/PERFORMANCE.md}. Each figure is printed on its own line:
 * {@code bench: <name> value=<number> unit=<unit> [details]}. Run by hand, on a quiet machine:
 *
 * <pre>
 * DURABLE_TEST_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/test ./mvnw -B -Pbench -pl durable-benchmark -am verify -DskipTests
 * </pre>
 *
 * Scenarios (pass letters to run a subset, e.g. {@code -Dbench.scenarios=g,a}):
 * (g) raw baseline: single-row UPDATE commits through plain JDBC from as many threads as the engine has slots, at most
 * {@code bench.maxRawThreads} (48), each on a connection of its own; and from exactly as many threads as the engine
 * has slots, sharing that many pooled connections; (a) is also drained with exactly {@code bench.maxRawThreads} slots;
 * (a) throughput of one-step no-op instances; (b) steps/s of a ten-step chain, inline execution on and off;
 * (c) latency local insert -> step start and signal -> woken step start, default settings, on a node just started
 * (cold) and on one that has run as many before (warm); the signal also with a payload, to a machine that declares
 * nothing and to one that declares it (what the check of declared signals costs);
 * (d) (a) with a million terminal rows in the table; (e) (a) partitioned over 1,000 keys;
 * (f) heap per in-flight step and heap of a node with 100,000 awaiting instances;
 * (p) (a) with a million pending timers and await deadlines in the table, and the node's heap growth with them;
 * (t) timer accuracy: 1,000 timers due at random instants over a minute, how late each fires, at the default poll
 * interval and at 100 ms; (r) (a) while another node's retention deletes a million expired instances, each with its
 * history; (h) (a) and (b) with history on and off, (a) and a chain that changes its state with the history's patches
 * on and off, and one patch computed in Java and in PostgreSQL; (k) a step starting 10,000 children and its join;
 * (s, not in {@code all}) the baseline from 4 to 80 threads, to see where it saturates; (u) the cost of a step:
 * pgbench's single-row UPDATE commit rate at its best client count, the engine at its defaults and ten-step inline
 * chains, with their CPU per step, in turn;
 * (v) what is in flight, the deploy check and the live counts over a million in-flight instances: their time, with
 * more groups and with fewer instances, (a) while another node checks the deploy over and over, and (a) with and without the index
 * they read;
 * (x) the peer: one-step no-op instances drained by the engine and by db-scheduler (lock-and-fetch polling, its best
 * configuration on PostgreSQL) at equal thread counts (10, 50, 256), with the CPU per step of the JVM and of
 * PostgreSQL for each; (l) remote latency: insert on one node -> step start on another node at the default settings,
 * once with wake-ups by LISTEN (the default) and once polling only ({@code .listen} and {@code .poll}), and
 * db-scheduler's at a 100 ms poll; (i) what an idle node of five queues costs the database (statements, CPU) per
 * second; (y, not in {@code all}) the defaults sweep: concurrency, batch size and batch window, each varied alone;
 * (n, not in {@code all}) one-step drains by 1, 2 and 4 nodes, each a JVM of its own ({@link NodeScaling});
 * (q) quiet-node latency: on an idle engine at its defaults, a start at a random moment 0 to 2 s after the last one
 * ended, from before {@code start()} to the step's body, p50 / p90 / p99; db-scheduler's start with its local
 * "immediate execution" hint measured beside it in the same run, each on a pool of its own;
 * (soak, not in {@code all}) a steady mixed workload at half the measured maximum for an hour, retention and
 * autovacuum on, reported per five-minute window ({@link Soak}).
 * Ratios are to figures of the same run, so they hold across machines better than the absolute numbers.
 */
public final class Benchmark {

    static final String SCHEMA = "durable_bench";

    private static final int N = Integer.getInteger("bench.instances", 50_000);
    private static final int CONCURRENCY = Integer.getInteger("bench.concurrency", 256);
    private static final int BATCH = Integer.getInteger("bench.batch", 128);
    /**
     * Threads of the raw baseline: as many as the engine has slots, up to what the database accepts as
     * connections (PostgreSQL's default max_connections is 100); the baseline saturates well below that.
     */
    private static final int RAW_THREADS = Math.min(CONCURRENCY, Integer.getInteger("bench.maxRawThreads", 48));
    private static final int CHAIN_INSTANCES = Integer.getInteger("bench.chainInstances", 10_000);
    private static final int LATENCY_SAMPLES = Integer.getInteger("bench.latencySamples", 1_000);
    private static final int HISTORY_ROWS = Integer.getInteger("bench.historyRows", 1_000_000);
    private static final int AWAITING = Integer.getInteger("bench.awaiting", 100_000);
    private static final int PENDING = Integer.getInteger("bench.pending", 1_000_000);
    /**
     * Whether steps and calls are observed (docs/DESIGN.md, "Tracing"): {@code off} (the default, the engine's
     * {@code ObservationRegistry.NOOP}); {@code on}, a registry whose one handler does nothing, so the cost measured
     * is durable's own: the observations made, started, scoped and stopped; or {@code bridge}, every observation a
     * span of OpenTelemetry's SDK through Micrometer Tracing's bridge, as an application with Spring Boot's tracing
     * has them ({@link BridgeObservations}).
     */
    private static final String OBSERVATIONS = System.getProperty("bench.observations", "off");
    /** How every scenario's engines hear of work from other nodes; (l) measures both whatever this says. */
    private static final WakeUps WAKE_UPS = WakeUps.valueOf(
            System.getProperty("bench.wakeUps", "listen").toUpperCase(Locale.ROOT));
    private static final int TIMERS = Integer.getInteger("bench.timers", 1_000);
    private static final int RETENTION_ROWS = Integer.getInteger("bench.retentionRows", 1_000_000);
    private static final int FAN_OUT = Integer.getInteger("bench.fanOut", 10_000);
    /** Instances per drain of (x), and the thread counts at which the engine and db-scheduler are compared. */
    private static final int PEER_N = Integer.getInteger("bench.peerInstances", 20_000);
    private static final int[] PEER_THREADS = Arrays.stream(System.getProperty("bench.peerThreads", "10,50,256")
            .split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
    /** Starts measured on each side in (q). */
    private static final int QUIET_SAMPLES = Integer.getInteger("bench.quietSamples", 300);
    /** The longest quiet time before a start of (q), from the end of the same side's last one. */
    private static final int QUIET_MAX_GAP_MILLIS = Integer.getInteger("bench.quietMaxGapMillis", 2_000);
    /** How long (i) watches an idle node. */
    private static final int IDLE_SECONDS = Integer.getInteger("bench.idleSeconds", 60);
    /** Rounds of (g) then (a): this machine's speed drifts, so the figures are medians over interleaved rounds. */
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
    /** Thread counts of the baseline's saturation sweep (s); the pool must hold the largest. */
    private static final int[] SWEEP_THREADS = {4, 16, 32, 48, 80};
    private static final int IN_FLIGHT = Integer.getInteger("bench.inFlight", 1_000);
    /** In-flight instances of (v), in groups of machine, version, step and status. */
    private static final int INVENTORY_ROWS = Integer.getInteger("bench.inventoryRows", 1_000_000);
    /** Timed repetitions of the report and of the check in (v). */
    private static final int INVENTORY_REPEATS = 5;
    /**
     * The cluster-wide limits of the throughput scenarios' queue (docs/DESIGN.md, "Cluster-wide limits"): none unless
     * {@code bench.clusterConcurrency} (K) or {@code bench.clusterRate} (e.g. {@code 2000/1s}) is set.
     */
    private static final ClusterLimits LIMITS = new ClusterLimits(Integer.getInteger("bench.clusterConcurrency"),
            System.getProperty("bench.clusterRate") == null ? null
                    : ClusterLimits.Rate.parse(System.getProperty("bench.clusterRate")));
    /** The queue of the throughput scenarios. */
    private static final QueueSettings QUEUE = new QueueSettings(CONCURRENCY, BATCH, LIMITS);

    record Sample(int index) {
    }

    /** A timer of (t): its instance's index and when it is due. */
    record Timer(int index, long dueMillis) {
    }

    private final HikariDataSource dataSource;
    private final JdbcTemplate jdbc;
    /** The server's CPU, when it runs on this host (a private server: nothing else mixes in). */
    private final @Nullable PostgresCpu postgresCpu;
    private final List<String> results = new ArrayList<>();

    private Benchmark(HikariDataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.postgresCpu = PostgresCpu.of(jdbc);
    }

    public static void main(String[] args) {
        try {
            run(args);
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1); // helper threads must not keep a failed run alive
        }
    }

    private static void run(String[] args) throws Exception {
        Set<String> scenarios = scenarios(args.length == 0 ? "all" : args[0]);
        TestPostgres postgres = TestPostgres.get();
        int connections = Math.max(RAW_THREADS,
                scenarios.contains("s") ? SWEEP_THREADS[SWEEP_THREADS.length - 1] : 0);
        try (HikariDataSource dataSource = postgres.newDataSource("bench", connections + 10)) {
            // The baseline's threads all ask for a connection at once; on a slow disk (a checkpoint running) opening
            // them can take longer than the tests' 10 s.
            dataSource.getHikariConfigMXBean().setConnectionTimeout(120_000);
            Benchmark benchmark = new Benchmark(dataSource);
            benchmark.describeEnvironment(postgres);
            postgres.dropSchema(SCHEMA);
            DurableSchema.named(SCHEMA).migrate(dataSource);
            benchmark.run(scenarios);
            System.out.println();
            benchmark.results.forEach(System.out::println);
        }
    }

    private static Set<String> scenarios(String spec) {
        if (spec.equals("all")) {
            return new LinkedHashSet<>(List.of("g", "a", "b", "c", "d", "e", "f", "p", "t", "r", "h", "k", "x", "u",
                    "l", "i", "v", "q"));
        }
        return new LinkedHashSet<>(Arrays.asList(spec.split(",")));
    }

    private void run(Set<String> scenarios) throws Exception {
        if (scenarios.contains("g") || scenarios.contains("a")) {
            baselineAndOneStepThroughput();
        }
        if (scenarios.contains("s")) {
            baselineSaturation();
        }
        if (scenarios.contains("b")) {
            chainThroughput(false);
            chainThroughput(true);
        }
        if (scenarios.contains("c")) {
            insertLatency();
            signalLatency("c.signal_to_step_start", false, false);
            // A payload, to a machine that declares nothing and to one that declares the signal and its type: the
            // ratio of the two is what checking a declared signal costs (docs/DESIGN.md, "Declared signals").
            signalLatency("c.signal_payload_to_step_start", false, true);
            signalLatency("c.signal_declared_to_step_start", true, true);
        }
        if (scenarios.contains("e")) {
            partitionedThroughput();
        }
        if (scenarios.contains("d")) {
            throughputWithHistory();
        }
        if (scenarios.contains("f")) {
            heapPerInFlightStep();
            heapWithAwaitingInstances();
        }
        if (scenarios.contains("p")) {
            throughputWithPendingTimers();
        }
        if (scenarios.contains("r")) {
            throughputDuringRetention();
        }
        if (scenarios.contains("h")) {
            historyCost();
        }
        if (scenarios.contains("k")) {
            fanOutAndJoin();
        }
        if (scenarios.contains("x")) {
            peers();
        }
        if (scenarios.contains("u")) {
            stepCost();
        }
        if (scenarios.contains("l")) {
            remoteInsertLatency();
        }
        if (scenarios.contains("i")) {
            idleCost();
        }
        if (scenarios.contains("q")) {
            quietNodeLatency();
        }
        if (scenarios.contains("t")) {
            timerAccuracy(EngineSettings.DEFAULT_POLL_INTERVAL);
            timerAccuracy(Duration.ofMillis(100));
        }
        if (scenarios.contains("y")) {
            defaults();
        }
        if (scenarios.contains("v")) {
            stepIndexCost();
            inFlightAndDeployCheck();
        }
        if (scenarios.contains("n")) {
            nodeScaling();
        }
        if (scenarios.contains("soak")) {
            new Soak(this, jdbc, SCHEMA).run();
        }
    }

    // ------------------------------------------------------------------ (n)

    /** (n) 1, 2 and 4 nodes in JVMs of their own on one database ({@link NodeScaling}). */
    private void nodeScaling() throws Exception {
        MachineDefinition noop = MachineDefinition.builder("noop", 1, Sample.class)
                .step("only", (state, ctx) -> Outcome.done())
                .build();
        TestPostgres postgres = TestPostgres.get();
        try (DurableEngine starter = engine(MachineRegistry.of(noop), DurableListener.NONE, UnaryOperator.identity())) {
            new NodeScaling(this, dataSource, starter.client(), postgres.jdbcUrl(), postgres.username(),
                    postgres.password()).run();
        }
    }

    // ------------------------------------------------------------------ (g)

    /** N single-row UPDATE commits from RAW_THREADS threads, each on its own connection, autocommit. */
    private double rawBaseline() throws Exception {
        return rawBaseline(RAW_THREADS);
    }

    /**
     * (s) The baseline from more and more threads: where it stops growing, more committing threads buy the database
     * nothing, so a ratio to the saturated baseline holds for any thread count beyond it.
     */
    private void baselineSaturation() throws Exception {
        for (int threads : SWEEP_THREADS) {
            double[] rates = new double[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                rates[round] = rawBaseline(threads);
            }
            report("s.raw_update_commits_" + threads + "_threads", median(rates), "commits/s",
                    "median_of=" + ROUNDS + " all=" + Arrays.toString(round(rates)));
        }
    }

    private double rawBaseline(int rawThreads) throws Exception {
        return rawBaseline(rawThreads, null);
    }

    /**
     * (g) from as many threads as the engine has step threads ({@link #CONCURRENCY}), sharing a pool of
     * {@link #RAW_THREADS} connections (the database would refuse one per thread): each update borrows a
     * connection, commits, and gives it back, as worker threads of an application do.
     */
    private double rawBaselineFromEngineThreads() throws Exception {
        try (HikariDataSource pool = TestPostgres.get().newDataSource("bench-shared", RAW_THREADS)) {
            pool.getHikariConfigMXBean().setConnectionTimeout(120_000);
            return rawBaseline(CONCURRENCY, pool);
        }
    }

    /**
     * N single-row UPDATE commits (autocommit) from {@code rawThreads} threads, each updating a row of its own:
     * each thread on a connection of its own when {@code sharedPool} is null, else borrowing one from it per update.
     */
    private double rawBaseline(int rawThreads, @Nullable HikariDataSource sharedPool) throws Exception {
        jdbc.execute("DROP TABLE IF EXISTS " + SCHEMA + ".bench_counter");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".bench_counter (id int PRIMARY KEY, n bigint NOT NULL)");
        jdbc.update("INSERT INTO " + SCHEMA + ".bench_counter SELECT g, 0 FROM generate_series(1, ?) g", rawThreads);
        String update = "UPDATE " + SCHEMA + ".bench_counter SET n = n + 1 WHERE id = ?";
        ExecutorService threads = Executors.newFixedThreadPool(rawThreads, runnable -> {
            Thread thread = new Thread(runnable, "raw-baseline");
            thread.setDaemon(true);
            return thread;
        });
        CountDownLatch ready = new CountDownLatch(rawThreads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        int perThread = N / rawThreads;
        for (int t = 0; t < rawThreads; t++) {
            int row = t + 1;
            workers.add(threads.submit(() -> {
                if (sharedPool != null) {
                    ready.countDown();
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        try (Connection connection = sharedPool.getConnection();
                                PreparedStatement statement = connection.prepareStatement(update)) {
                            statement.setInt(1, row);
                            statement.executeUpdate();
                        }
                    }
                    return null;
                }
                try (Connection connection = dataSource.getConnection();
                        PreparedStatement statement = connection.prepareStatement(update)) {
                    connection.setAutoCommit(true);
                    statement.setInt(1, row);
                    ready.countDown();
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        statement.executeUpdate();
                    }
                } finally {
                    ready.countDown(); // a thread that could not connect must not hold the others up for ever
                }
                return null;
            }));
        }
        if (!ready.await(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the baseline's threads could not all connect");
        }
        if (sharedPool != null) {
            // Open the pool's connections before the clock starts, as the dedicated threads do.
            List<Connection> opened = new ArrayList<>();
            for (int c = 0; c < RAW_THREADS; c++) {
                opened.add(sharedPool.getConnection());
            }
            for (Connection connection : opened) {
                connection.close();
            }
        }
        long start = System.nanoTime();
        go.countDown();
        for (Future<?> worker : workers) {
            worker.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        threads.shutdown();
        double rate = perThread * rawThreads / seconds;
        note("g: " + String.format(Locale.ROOT, "%.0f", rate) + " commits/s from " + rawThreads + " threads"
                + (sharedPool == null ? "" : " sharing " + RAW_THREADS + " connections"));
        return rate;
    }

    // ------------------------------------------------------------------ (a), (d), (e)

    /**
     * (g) and (a), ROUNDS times in turn, after a warm-up drain; each reported as the median of its rounds, and the
     * ratio as the median of the rounds' ratios (a round's two figures saw the same machine).
     */
    private void baselineAndOneStepThroughput() throws Exception {
        drain("warm-up", N / 5, i -> StartOptions.defaults(), true);
        double[] raw = new double[ROUNDS];
        double[] rawEngineThreads = new double[ROUNDS];
        double[] oneStep = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        double[] ratioEngineThreads = new double[ROUNDS];
        double[] sameThreads = new double[ROUNDS];
        double[] sameThreadsRatio = new double[ROUNDS];
        boolean poolShared = CONCURRENCY > RAW_THREADS;
        for (int round = 0; round < ROUNDS; round++) {
            raw[round] = rawBaseline();
            rawEngineThreads[round] = poolShared ? rawBaselineFromEngineThreads() : raw[round];
            oneStep[round] = drain("a", N, i -> StartOptions.defaults(), true, QUEUE);
            ratio[round] = oneStep[round] / raw[round];
            ratioEngineThreads[round] = oneStep[round] / rawEngineThreads[round];
            // The engine with exactly as many step threads as the baseline has connections.
            sameThreads[round] = drain("a(" + RAW_THREADS + " slots)", N, i -> StartOptions.defaults(), true,
                    new QueueSettings(RAW_THREADS, Math.max(1, RAW_THREADS / 2)));
            sameThreadsRatio[round] = sameThreads[round] / raw[round];
        }
        report("g.raw_update_commits", median(raw), "commits/s", "threads=" + RAW_THREADS + " connections="
                + RAW_THREADS + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(raw)));
        if (poolShared) {
            report("g.raw_update_commits_engine_threads", median(rawEngineThreads), "commits/s", "threads="
                    + CONCURRENCY + " connections=" + RAW_THREADS + " median_of=" + ROUNDS + " all="
                    + Arrays.toString(round(rawEngineThreads)));
        }
        report("a.one_step_throughput", median(oneStep), "instances/s", "n=" + N + " concurrency=" + CONCURRENCY
                + " batch=" + BATCH + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(oneStep)));
        report("a.ratio_to_raw", median(ratio), "x", "baseline_threads=" + RAW_THREADS + " median_of=" + ROUNDS
                + " ratios=" + twoDecimals(ratio));
        if (poolShared) {
            report("a.ratio_to_raw_engine_threads", median(ratioEngineThreads), "x", "baseline_threads="
                    + CONCURRENCY + " median_of=" + ROUNDS + " ratios=" + twoDecimals(ratioEngineThreads));
        }
        report("a.one_step_throughput_same_threads", median(sameThreads), "instances/s", "n=" + N + " concurrency="
                + RAW_THREADS + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(sameThreads)));
        report("a.ratio_to_raw_same_threads", median(sameThreadsRatio), "x", "median_of=" + ROUNDS
                + " ratios=" + twoDecimals(sameThreadsRatio));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String twoDecimals(double[] values) {
        return Arrays.stream(values).mapToObj(value -> String.format(Locale.ROOT, "%.2f", value)).toList().toString();
    }

    private static long[] round(double[] values) {
        return Arrays.stream(values).mapToLong(Math::round).toArray();
    }

    /**
     * (e), ROUNDS times, each right after a drain of (a): the ratio is the median of the rounds' ratios, each
     * taken between two runs a few seconds apart (this machine's speed drifts more than that between minutes).
     */
    private void partitionedThroughput() throws Exception {
        double[] rate = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double oneStep = drain("a", N, i -> StartOptions.defaults(), true);
            rate[round] = drain("e", N, i -> StartOptions.defaults().partitionKey("key-" + (i % 1000)), true);
            ratio[round] = rate[round] / oneStep;
        }
        report("e.partitioned_throughput", median(rate), "instances/s", "keys=1000 n=" + N + " median_of=" + ROUNDS
                + " all=" + Arrays.toString(round(rate)));
        report("e.ratio_to_a", median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));
    }

    /** (d), ROUNDS times, each right after a drain of (a) on an empty table; ratios as for (e). */
    private void throughputWithHistory() throws Exception {
        double[] rate = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double oneStep = drain("a", N, i -> StartOptions.defaults(), true);
            clean();
            jdbc.update("""
                    INSERT INTO durable_bench.durable_instance (machine, machine_version, step, state, queue, status,
                                                                result, created_at, updated_at)
                    SELECT 'history', 1, 'only', '{"index": 1}', 'default', 'done', '"ok"', now(), now()
                    FROM generate_series(1, ?)
                    """, HISTORY_ROWS);
            jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_instance");
            rate[round] = drain("d", N, i -> StartOptions.defaults(), false);
            ratio[round] = rate[round] / oneStep;
        }
        clean();
        report("d.throughput_with_history", median(rate), "instances/s", "terminal_rows=" + HISTORY_ROWS + " n=" + N
                + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(rate)));
        report("d.ratio_to_a", median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));
    }

    /**
     * (p) (a) with PENDING rows that wait on time in the table, half durable timers (runnable rows of the same queue
     * due in one to 12 hours) and half awaits with a deadline that far ahead, against (a) without them in the same
     * round; and how much a running node's heap grows when they are added: they must cost rows, not memory.
     */
    private void throughputWithPendingTimers() throws Exception {
        double[] rate = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double oneStep = drain("a", N, i -> StartOptions.defaults(), true);
            clean();
            insertPending();
            rate[round] = drain("p", N, i -> StartOptions.defaults(), false);
            ratio[round] = rate[round] / oneStep;
        }
        report("p.throughput_with_pending_timers", median(rate), "instances/s", "pending=" + PENDING + " n=" + N
                + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(rate)));
        report("p.ratio_to_a", median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));

        clean();
        MachineDefinition noop = MachineDefinition.builder("noop", 1, Sample.class)
                .step("only", (state, ctx) -> Outcome.done())
                .build();
        DurableEngine engine = engine(MachineRegistry.of(noop), DurableListener.NONE,
                settings -> settings.queue("default", QUEUE));
        engine.start();
        idle(engine);
        long before = usedHeapAfterGc();
        insertPending();
        idle(engine);
        long after = usedHeapAfterGc();
        engine.close();
        clean();
        report("p.heap_growth_with_pending_timers", (after - before) / 1024.0 / 1024.0, "MiB",
                "pending=" + PENDING + " heap_before=" + before / 1024 / 1024 + "MiB");
    }

    /** PENDING rows waiting on time: half timers of the default queue, half awaits with a deadline. */
    private void insertPending() {
        jdbc.update("""
                INSERT INTO durable_bench.durable_instance (machine, machine_version, step, state, queue, status,
                                                            eligible_at, awaits, deadline)
                SELECT 'noop', 1, 'only', '{"index": 1}', 'default',
                       (CASE WHEN g % 2 = 0 THEN 'runnable' ELSE 'awaiting_signal' END)::durable_bench.durable_status,
                       now() + interval '1 hour' + g * interval '40 milliseconds',
                       CASE WHEN g % 2 = 1 THEN 'never' END,
                       CASE WHEN g % 2 = 1 THEN now() + interval '1 hour' + g * interval '40 milliseconds' END
                FROM generate_series(1, ?) g
                """, PENDING);
        jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_instance");
    }

    /** Lets a running node poll and sweep deadlines a few times (its loops' longest pauses) with nothing to do. */
    private static void idle(DurableEngine engine) throws InterruptedException {
        Thread.sleep(engine.settings().pollInterval().multipliedBy(3).toMillis()); // pacing only: the node idles
    }

    /**
     * (t) How late durable timers fire: TIMERS instances each set a timer ({@code nextAt}) at a random instant
     * within the next minute, and the timed step notes how long after that instant it started.
     */
    private void timerAccuracy(Duration pollInterval) throws Exception {
        clean();
        double[] late = new double[TIMERS];
        CountDownLatch fired = new CountDownLatch(TIMERS);
        MachineDefinition machine = MachineDefinition.builder("timer", 1, Timer.class)
                .initialStep("set")
                .step("set", (state, ctx) -> Outcome.nextAt("fire", state, Instant.ofEpochMilli(state.dueMillis())))
                .step("fire", (state, ctx) -> {
                    late[state.index()] = System.currentTimeMillis() - state.dueMillis();
                    fired.countDown();
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engine(MachineRegistry.of(machine), DurableListener.NONE,
                settings -> settings.pollInterval(pollInterval));
        engine.start();
        Random random = new Random(42);
        long from = System.currentTimeMillis() + 3000;
        engine.client().startAll("timer", IntStream.range(0, TIMERS)
                .mapToObj(i -> StartRequest.of(new Timer(i, from + random.nextInt(60_000)))).toList());
        if (!fired.await(3, TimeUnit.MINUTES)) {
            throw new IllegalStateException(fired.getCount() + " timers did not fire");
        }
        engine.close();
        double[] sorted = late.clone();
        Arrays.sort(sorted);
        String poll = pollInterval.toMillis() + "ms";
        String details = "timers=" + TIMERS + " poll_interval=" + poll + " min=" + sorted[0] + "ms max="
                + sorted[sorted.length - 1] + "ms";
        report("t.timer_late_p50_poll_" + poll, sorted[sorted.length / 2], "ms", details);
        report("t.timer_late_p99_poll_" + poll, sorted[(int) Math.ceil(sorted.length * 0.99) - 1], "ms", details);
    }

    /**
     * (r) (a) while another node's retention sweep deletes RETENTION_ROWS expired done instances (with a signal each),
     * against (a) alone in the same round; and how long the sweep takes to delete them all.
     */
    private void throughputDuringRetention() throws Exception {
        double[] rate = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        double[] deletion = new double[ROUNDS];
        MachineDefinition noop = MachineDefinition.builder("noop", 1, Sample.class)
                .step("only", (state, ctx) -> Outcome.done())
                .build();
        for (int round = 0; round < ROUNDS; round++) {
            double alone = drain("a", N, i -> StartOptions.defaults(), true);
            clean();
            jdbc.update("""
                    INSERT INTO durable_bench.durable_instance (machine, machine_version, step, state, queue, status,
                                                                result, created_at, updated_at)
                    SELECT 'history', 1, 'only', '{"index": 1}', 'default', 'done', '"ok"',
                           now() - interval '3 days', now() - interval '2 days' - g * interval '1 millisecond'
                    FROM generate_series(1, ?) g
                    """, RETENTION_ROWS);
            jdbc.update("""
                    INSERT INTO durable_bench.durable_signal (instance_id, name, dedup_key)
                    SELECT id, 'paid', 'evt' FROM durable_bench.durable_instance
                    """);
            // Each with the history of a three-step life, deleted with it.
            jdbc.update("""
                    INSERT INTO durable_bench.durable_history (instance_id, step, event, status, attempt, node,
                                                               lease_token, at, duration_ms)
                    SELECT i.id, 'only', e.event, e.status::durable_bench.durable_status, 0, 'bench:1', i.id,
                           i.updated_at, 1
                    FROM durable_bench.durable_instance i,
                         (VALUES ('next', 'runnable'), ('await', 'awaiting_signal'), ('done', 'done')) e(event, status)
                    """);
            jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_instance");
            jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_signal");
            jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_history");
            // The sweeping node works no queue: it only deletes.
            DurableEngine sweeper = engine(MachineRegistry.of(noop), DurableListener.NONE, settings -> settings
                    .nodeName("sweeper").queue("default", new QueueSettings(0, 1))
                    .retentionDone(Duration.ofDays(1)).retentionInterval(Duration.ofSeconds(1)));
            long begin = System.nanoTime();
            sweeper.start();
            rate[round] = drain("r", N, i -> StartOptions.defaults(), false);
            ratio[round] = rate[round] / alone;
            while (sweeper.stats().retentionDeleted() < RETENTION_ROWS) {
                Thread.sleep(100); // pacing only: the sweep runs on its own
            }
            deletion[round] = (System.nanoTime() - begin) / 1e9;
            sweeper.close();
            note("r: deleted " + RETENTION_ROWS + " expired instances in "
                    + String.format(Locale.ROOT, "%.1f", deletion[round]) + " s");
        }
        clean();
        report("r.throughput_during_retention", median(rate), "instances/s", "expired=" + RETENTION_ROWS + " n=" + N
                + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(rate)));
        report("r.ratio_to_a", median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));
        report("r.deletion_time", median(deletion), "s", "expired=" + RETENTION_ROWS + " batch="
                + EngineSettings.DEFAULT_RETENTION_BATCH_SIZE + " median_of=" + ROUNDS + " all="
                + twoDecimals(deletion));
    }

    /** Inserts n one-step no-op instances in batches, then starts an engine and times it until all are done. */
    private double drain(String label, int n, Function<Integer, StartOptions> options, boolean clean)
            throws Exception {
        return drain(label, n, options, clean, QUEUE);
    }

    double drain(String label, int n, Function<Integer, StartOptions> options, boolean clean,
            QueueSettings queue) throws Exception {
        return drain(label, n, options, clean, queue, UnaryOperator.identity());
    }

    private double drain(String label, int n, Function<Integer, StartOptions> options, boolean clean,
            QueueSettings queue, UnaryOperator<EngineSettings.Builder> adjust) throws Exception {
        return measuredDrain(label, n, options, clean, queue, adjust).rate();
    }

    /** A drain's rate and the CPU the JVM and PostgreSQL spent on it (NaN where the latter cannot be read). */
    record Drained(double rate, double jvmCpuSeconds, double postgresCpuSeconds) {
    }

    private Drained measuredDrain(String label, int n, Function<Integer, StartOptions> options, boolean clean,
            QueueSettings queue, UnaryOperator<EngineSettings.Builder> adjust) throws Exception {
        if (clean) {
            clean();
        }
        MachineDefinition noop = MachineDefinition.builder("noop", 1, Sample.class)
                .step("only", (state, ctx) -> Outcome.done())
                .build();
        CountingListener applied = new CountingListener();
        DurableEngine engine = engine(MachineRegistry.of(noop), applied,
                settings -> adjust.apply(settings.queue("default", queue)));
        for (int from = 0; from < n; from += 1000) {
            int start = from;
            engine.client().startAll("noop", IntStream.range(start, Math.min(n, start + 1000))
                    .mapToObj(i -> StartRequest.of(new Sample(i), options.apply(i))).toList());
        }
        jdbc.execute("ANALYZE " + SCHEMA + ".durable_instance");
        CpuUse cpu = CpuUse.start();
        double jvmBefore = CpuUse.jvmCpuNanos() / 1e9;
        double postgresBefore = postgresCpu == null ? Double.NaN : postgresCpu.seconds();
        long begin = System.nanoTime();
        engine.start();
        long started = System.nanoTime();
        applied.awaitCount(n, Duration.ofMinutes(10));
        double seconds = (System.nanoTime() - begin) / 1e9;
        double jvm = CpuUse.jvmCpuNanos() / 1e9 - jvmBefore;
        double postgres = postgresCpu == null ? Double.NaN : postgresCpu.seconds() - postgresBefore;
        String cpuUse = cpu.stop();
        engine.close();
        note(label + ": " + n + " instances in " + String.format(Locale.ROOT, "%.2f", seconds) + " s (the engine's start "
                + String.format(Locale.ROOT, "%.1f", (started - begin) / 1e6) + " ms of it); "
                + describe(engine) + "; " + cpuUse + String.format(Locale.ROOT, " postgres=%.2fs", postgres));
        return new Drained(n / seconds, jvm, postgres);
    }

    // ------------------------------------------------------------------ (y)

    /**
     * (y) The queue's defaults, chosen by measurement: one-step throughput and CPU per step (JVM and PostgreSQL) at
     * concurrency 10, 32, 64 and 256 with the default batch size; at the default concurrency with batches of 16, 50
     * and 128; and with batch windows of 0, 2 and 5 ms, with the local insert -> start latency at each window. The
     * drains are interleaved round by round; medians.
     */
    private void defaults() throws Exception {
        record Variant(String name, QueueSettings queue, Duration window) {
        }
        List<Variant> variants = new ArrayList<>();
        int batch = QueueSettings.DEFAULT_BATCH_SIZE;
        Duration window = EngineSettings.DEFAULT_BATCH_WINDOW;
        for (int concurrency : new int[] {10, 50, 256}) {
            for (int size : new int[] {50, 128, 256}) {
                variants.add(new Variant("c" + concurrency + "_b" + size + "_w" + window.toMillis(),
                        new QueueSettings(concurrency, size), window));
            }
        }
        variants.add(new Variant("c" + QueueSettings.DEFAULT_CONCURRENCY + "_b16_w" + window.toMillis(),
                new QueueSettings(QueueSettings.DEFAULT_CONCURRENCY, 16), window));
        for (int concurrency : new int[] {QueueSettings.DEFAULT_CONCURRENCY, 256}) {
            for (long millis : new long[] {0, 5}) {
                variants.add(new Variant("c" + concurrency + "_b" + batch + "_w" + millis,
                        new QueueSettings(concurrency, batch), Duration.ofMillis(millis)));
            }
        }
        Map<String, double[]> rates = new LinkedHashMap<>();
        Map<String, double[]> cpus = new LinkedHashMap<>();
        for (Variant variant : variants) {
            rates.put(variant.name(), new double[ROUNDS]);
            cpus.put(variant.name(), new double[ROUNDS]);
        }
        for (int round = 0; round < ROUNDS; round++) {
            for (Variant variant : variants) {
                Drained drained = measuredDrain("y " + variant.name(), PEER_N, i -> StartOptions.defaults(), true,
                        variant.queue(), settings -> settings.batchWindow(variant.window()));
                rates.get(variant.name())[round] = drained.rate();
                cpus.get(variant.name())[round] = (drained.jvmCpuSeconds() + drained.postgresCpuSeconds()) / PEER_N;
            }
        }
        for (Variant variant : variants) {
            double[] rate = rates.get(variant.name());
            report("y." + variant.name(), median(rate), "instances/s", "cpu_per_step="
                    + micros(median(cpus.get(variant.name()))) + " all=" + Arrays.toString(round(rate)));
        }
        for (long millis : new long[] {0, 2, 5}) {
            long[][] samples = insertLatency(settings -> settings.batchWindow(Duration.ofMillis(millis)));
            reportColdAndWarm("y.insert_to_step_start_w" + millis, samples[0], samples[1]);
        }
    }

    // ------------------------------------------------------------------ (l), (i)

    /**
     * (l) Remote insert -> step start, at the default settings: a client of another node (a separate engine without
     * slots) starts an instance at random intervals of 50 to 500 ms, one at a time, and the working node notes when
     * each step starts. Twice: with wake-ups by LISTEN (the default: the insert's notification wakes the working
     * node), then polling only (it hears of the row only when its poll finds it).
     */
    private void remoteInsertLatency() throws Exception {
        for (WakeUps wakeUps : List.of(WakeUps.LISTEN, WakeUps.POLL)) {
            remoteInsertLatency(wakeUps);
        }
    }

    private void remoteInsertLatency(WakeUps wakeUps) throws Exception {
        clean();
        int samples = LATENCY_SAMPLES / 2;
        long[] sent = new long[samples];
        long[] started = new long[samples];
        CountDownLatch[] startedLatch = latches(samples);
        MachineDefinition machine = MachineDefinition.builder("remote", 1, Sample.class)
                .step("only", (state, ctx) -> {
                    started[state.index()] = System.nanoTime();
                    startedLatch[state.index()].countDown();
                    return Outcome.done();
                })
                .build();
        DurableEngine worker = engine(MachineRegistry.of(machine), DurableListener.NONE,
                settings -> settings.wakeUps(wakeUps));
        DurableEngine other = engine(MachineRegistry.of(machine), DurableListener.NONE, settings -> settings
                .nodeName("other").queue("default", QueueSettings.concurrency(0)).wakeUps(wakeUps));
        worker.start();
        Random random = new Random(7);
        for (int i = 0; i < samples; i++) {
            Thread.sleep(50 + random.nextInt(451)); // pacing: the arrivals' spacing, not synchronization
            sent[i] = System.nanoTime();
            other.client().start("remote", new Sample(i));
            if (!startedLatch[i].await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("remote instance " + i + " did not start");
            }
        }
        worker.close();
        other.close();
        reportLatency("l.remote_insert_to_step_start." + wakeUps.name().toLowerCase(Locale.ROOT), sent, started);
    }

    /**
     * (i) What an idle node costs the database: a node working five queues with nothing to do, for IDLE_SECONDS; the
     * statements it ran (transactions committed in the database, which runs one per statement) and the server's CPU
     * over that time, per second, less what the server spends with no node at all over as long just before (its own
     * background work).
     */
    private void idleCost() throws Exception {
        clean();
        double serverAlone = postgresCpu == null ? Double.NaN : postgresCpu.seconds();
        Thread.sleep(IDLE_SECONDS * 1000L); // pacing: the server alone, measured over the same time
        serverAlone = postgresCpu == null ? Double.NaN : postgresCpu.seconds() - serverAlone;
        List<MachineDefinition> machines = new ArrayList<>();
        for (int q = 0; q < 5; q++) {
            machines.add(MachineDefinition.builder("idle-" + q, 1, Sample.class).queue("q" + q)
                    .step("only", (state, ctx) -> Outcome.done()).build());
        }
        DurableEngine engine = engine(MachineRegistry.of(machines), DurableListener.NONE, settings -> {
            for (int q = 0; q < 5; q++) {
                settings.queue("q" + q, QueueSettings.defaults());
            }
            return settings;
        });
        engine.start();
        Thread.sleep(2_000); // pacing: let the node settle into its idle rhythm
        String database = jdbc.queryForObject("SELECT current_database()", String.class);
        long commitsBefore = commits(database);
        double postgresBefore = postgresCpu == null ? Double.NaN : postgresCpu.seconds();
        double jvmBefore = CpuUse.jvmCpuNanos() / 1e9;
        Thread.sleep(IDLE_SECONDS * 1000L); // pacing: the measured idle time
        double postgres = postgresCpu == null ? Double.NaN : postgresCpu.seconds() - postgresBefore;
        double jvm = CpuUse.jvmCpuNanos() / 1e9 - jvmBefore;
        long commits = commits(database) - commitsBefore;
        engine.close();
        report("i.idle_statements_per_second", commits / (double) IDLE_SECONDS, "statements/s", "queues=5 seconds="
                + IDLE_SECONDS + " poll=" + engine.settings().pollInterval());
        report("i.idle_postgres_cpu", (postgres - serverAlone) / IDLE_SECONDS * 100, "% of a core", "seconds="
                + IDLE_SECONDS + " with_node=" + String.format(Locale.ROOT, "%.2fs", postgres) + " server_alone="
                + String.format(Locale.ROOT, "%.2fs", serverAlone));
        report("i.idle_jvm_cpu", jvm / IDLE_SECONDS * 100, "% of a core", "seconds=" + IDLE_SECONDS);
    }

    private long commits(String database) {
        // The statistics are a snapshot per transaction: read them fresh.
        jdbc.execute("SELECT pg_stat_clear_snapshot()");
        return jdbc.queryForObject("SELECT xact_commit FROM pg_stat_database WHERE datname = ?", Long.class,
                database);
    }

    // ------------------------------------------------------------------ (q)

    /**
     * (q) Quiet-node latency, durable beside db-scheduler in one run: from before the start call to the step's body
     * (the task's, for db-scheduler), one start at a time on an idle node. Each side has a pool of its own of ten
     * connections, all kept open (Spring Boot's default pool), so neither keeps the other's connections fresh: durable
     * at its defaults (steps on virtual threads where the JVM has them, as in every scenario), db-scheduler at its
     * defaults with immediate execution on (a task scheduled due now through the scheduler wakes its own poller).
     * Both are warmed up by back-to-back starts; then each measured start comes at a random moment 0 to
     * {@code bench.quietMaxGapMillis} (2 s) after the same side's last one ended, the two sides taking turns as their
     * moments come (never both at once).
     */
    private void quietNodeLatency() throws Exception {
        clean();
        int warmUp = Math.min(200, QUIET_SAMPLES);
        int total = warmUp + QUIET_SAMPLES;
        long[] started = new long[total];
        CountDownLatch[] startedLatch = latches(total);
        MachineDefinition machine = MachineDefinition.builder("quiet", 1, Sample.class)
                .step("only", (state, ctx) -> {
                    started[state.index()] = System.nanoTime();
                    startedLatch[state.index()].countDown();
                    return Outcome.done();
                })
                .build();
        try (HikariDataSource durablePool = quietPool("quiet-durable");
                HikariDataSource peerPool = quietPool("quiet-db-scheduler");
                DbSchedulerBaseline.Immediate peer = new DbSchedulerBaseline(dataSource, SCHEMA)
                        .immediate(peerPool)) {
            DurableEngine engine = engine(durablePool, MachineRegistry.of(machine), DurableListener.NONE,
                    UnaryOperator.identity());
            engine.start();
            DurableClient client = engine.client();
            for (int i = 0; i < warmUp; i++) {
                quietStart(client, i, startedLatch);
                peer.startAndTime();
            }
            long[] durable = new long[QUIET_SAMPLES];
            long[] dbScheduler = new long[QUIET_SAMPLES];
            int[] done = new int[2];
            Random random = new Random(11);
            long[] nextAt = {System.nanoTime() + quietGap(random), System.nanoTime() + quietGap(random)};
            while (done[0] < QUIET_SAMPLES || done[1] < QUIET_SAMPLES) {
                int side = done[1] >= QUIET_SAMPLES || (done[0] < QUIET_SAMPLES && nextAt[0] <= nextAt[1]) ? 0 : 1;
                long wait = nextAt[side] - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing: the quiet time before the start, not synchronization
                }
                if (side == 0) {
                    int index = warmUp + done[0];
                    long sent = quietStart(client, index, startedLatch);
                    durable[done[0]++] = started[index] - sent;
                } else {
                    dbScheduler[done[1]++] = peer.startAndTime();
                }
                nextAt[side] = System.nanoTime() + quietGap(random);
            }
            engine.close();
            note("q: durable " + describe(engine));
            double[] durableMillis = Arrays.stream(durable).mapToDouble(nanos -> nanos / 1e6).sorted().toArray();
            double[] peerMillis = Arrays.stream(dbScheduler).mapToDouble(nanos -> nanos / 1e6).sorted().toArray();
            reportPercentiles("q.durable_quiet_start", durableMillis);
            reportPercentiles("q.db_scheduler_immediate_start", peerMillis);
            report("q.ratio_p50", percentile(durableMillis, 50) / percentile(peerMillis, 50), "x",
                    "durable p50 / db-scheduler p50; max_gap=" + QUIET_MAX_GAP_MILLIS + "ms");
        }
    }

    /** One start of (q): returns when it was sent (System.nanoTime), once its step has begun. */
    private static long quietStart(DurableClient client, int index, CountDownLatch[] startedLatch)
            throws InterruptedException {
        long sent = System.nanoTime();
        client.start("quiet", new Sample(index));
        if (!startedLatch[index].await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("quiet start " + index + " did not begin within 10 s");
        }
        return sent;
    }

    private static long quietGap(Random random) {
        return TimeUnit.MILLISECONDS.toNanos(random.nextInt(QUIET_MAX_GAP_MILLIS + 1));
    }

    /** A pool as Spring Boot configures one by default: ten connections, all kept open. */
    private static HikariDataSource quietPool(String name) {
        HikariDataSource pool = TestPostgres.get().newDataSource(name, 10);
        pool.getHikariConfigMXBean().setMinimumIdle(10);
        return pool;
    }

    // ------------------------------------------------------------------ (x)

    /**
     * (x) The peer: one-step no-op work drained by db-scheduler (lock-and-fetch, two configurations: the one its
     * documentation gives for normal use and the one for high throughput) and by the engine (its default batch size),
     * at equal thread counts, in interleaved rounds; then the engine in its best configuration (QUEUE). Reports the
     * ratios to db-scheduler's best at each thread count and CPU per step (JVM and PostgreSQL) for both.
     */
    private void peers() throws Exception {
        DbSchedulerBaseline dbScheduler = new DbSchedulerBaseline(dataSource, SCHEMA);
        List<DbSchedulerBaseline.Polling> pollings = List.of(new DbSchedulerBaseline.Polling(0.5, 1.0),
                new DbSchedulerBaseline.Polling(1.0, 4.0));
        // Both warmed up in every configuration measured, so that neither pays for its JIT in its first rounds (the
        // first drain at 10 threads used to cost either side twice the JVM CPU per step of the later ones).
        drain("warm-up", N / 5, i -> StartOptions.defaults(), true);
        for (int threads : PEER_THREADS) {
            for (DbSchedulerBaseline.Polling polling : pollings) {
                clean();
                dbScheduler.drain(PEER_N / 2, threads, polling, postgresCpu);
            }
            drain("warm-up (" + threads + " slots)", PEER_N / 2, i -> StartOptions.defaults(), true,
                    QueueSettings.concurrency(threads));
        }
        double bestPeer = 0;
        for (int threads : PEER_THREADS) {
            double[] peer = new double[ROUNDS];
            double[] engine = new double[ROUNDS];
            double[] ratio = new double[ROUNDS];
            double[] peerCpu = new double[ROUNDS];
            double[] peerPostgresCpu = new double[ROUNDS];
            double[] engineCpu = new double[ROUNDS];
            double[] enginePostgresCpu = new double[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                double best = 0;
                for (DbSchedulerBaseline.Polling polling : pollings) {
                    clean();
                    DbSchedulerBaseline.Drained peerDrained = dbScheduler.drain(PEER_N, threads, polling,
                            postgresCpu);
                    double rate = peerDrained.rate();
                    double jvm = peerDrained.jvmCpuSeconds();
                    double postgres = peerDrained.postgresCpuSeconds();
                    note("x: db-scheduler " + polling + " " + threads + " threads: " + Math.round(rate)
                            + " executions/s; cpu per step: jvm " + micros(jvm / PEER_N) + " postgres "
                            + micros(postgres / PEER_N));
                    if (rate > best) {
                        best = rate;
                        peerCpu[round] = jvm / PEER_N;
                        peerPostgresCpu[round] = postgres / PEER_N;
                    }
                }
                Drained drained = measuredDrain("x (" + threads + " slots)", PEER_N, i -> StartOptions.defaults(),
                        true, QueueSettings.concurrency(threads), UnaryOperator.identity());
                peer[round] = best;
                engine[round] = drained.rate();
                ratio[round] = engine[round] / peer[round];
                engineCpu[round] = drained.jvmCpuSeconds() / PEER_N;
                enginePostgresCpu[round] = drained.postgresCpuSeconds() / PEER_N;
            }
            bestPeer = Math.max(bestPeer, median(peer));
            report("x.db_scheduler_" + threads + "_threads", median(peer), "executions/s", "best of " + pollings
                    + " all=" + Arrays.toString(round(peer)));
            report("x.durable_" + threads + "_slots", median(engine), "instances/s", "batch="
                    + QueueSettings.concurrency(threads).batchSize() + " all=" + Arrays.toString(round(engine)));
            report("x.ratio_" + threads, median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));
            report("x.cpu_per_step_" + threads, median(engineCpu) * 1e6 + median(enginePostgresCpu) * 1e6, "us",
                    "durable jvm=" + micros(median(engineCpu)) + " postgres=" + micros(median(enginePostgresCpu))
                    + "; db-scheduler jvm=" + micros(median(peerCpu)) + " postgres="
                    + micros(median(peerPostgresCpu)) + "; ratio="
                    + String.format(Locale.ROOT, "%.2f", (median(engineCpu) + median(enginePostgresCpu))
                            / (median(peerCpu) + median(peerPostgresCpu))));
        }
        double[] best = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            best[round] = drain("x (best: " + CONCURRENCY + " slots)", PEER_N, i -> StartOptions.defaults(), true,
                    QUEUE);
        }
        clean();
        report("x.durable_best", median(best), "instances/s", "concurrency=" + CONCURRENCY + " batch=" + BATCH
                + " all=" + Arrays.toString(round(best)));
        report("x.ratio_best_to_best", median(best) / bestPeer, "x", "db-scheduler best=" + Math.round(bestPeer));
    }

    private static String micros(double seconds) {
        return Double.isNaN(seconds) ? "n/a" : String.format(Locale.ROOT, "%.0fus", seconds * 1e6);
    }

    // ------------------------------------------------------------------ (b)

    private void chainThroughput(boolean inline) throws Exception {
        double rate = chainThroughput(inline, UnaryOperator.identity());
        report("b.chain_steps_" + (inline ? "inline" : "not_inline"), rate, "steps/s",
                "instances=" + CHAIN_INSTANCES + " steps=10");
    }

    /** Steps per second of CHAIN_INSTANCES ten-step chains. */
    private double chainThroughput(boolean inline, UnaryOperator<EngineSettings.Builder> adjust) throws Exception {
        return chainThroughput(inline, false, adjust);
    }

    /**
     * Steps per second of CHAIN_INSTANCES ten-step chains; with {@code changing}, each step but the last writes a
     * state that differs from the one it ran on (its index raised), so each records a patch when patches are on.
     */
    private double chainThroughput(boolean inline, boolean changing, UnaryOperator<EngineSettings.Builder> adjust)
            throws Exception {
        return measuredChain(inline, changing, false, adjust).rate();
    }

    /**
     * {@link #chainThroughput(boolean, boolean, UnaryOperator)} with the CPU the JVM and PostgreSQL spent on it; with
     * {@code analyze}, the table's statistics are brought up to date before the engine starts, as (a) does, so that
     * the statements run on cached plans (docs/PERFORMANCE.md, "Prepared statements, planned for the table as it is")
     * rather than planned at every execution as on a table the statistics still call small.
     */
    private Drained measuredChain(boolean inline, boolean changing, boolean analyze,
            UnaryOperator<EngineSettings.Builder> adjust) throws Exception {
        clean();
        MachineDefinition.Builder<Sample> chain = MachineDefinition.builder("chain", 1, Sample.class)
                .initialStep("s0");
        for (int step = 0; step < 10; step++) {
            String next = "s" + (step + 1);
            chain.step("s" + step, step == 9 ? (state, ctx) -> Outcome.done()
                    : changing ? (state, ctx) -> Outcome.next(next, new Sample(state.index() + 1))
                    : (state, ctx) -> Outcome.next(next, state));
        }
        CountingListener applied = new CountingListener();
        DurableEngine engine = engine(MachineRegistry.of(chain.build()), applied, settings -> adjust.apply(settings
                .queue("default", new QueueSettings(CONCURRENCY, BATCH)).inlineNextSteps(inline)));
        for (int from = 0; from < CHAIN_INSTANCES; from += 1000) {
            int start = from;
            engine.client().startAll("chain", IntStream.range(start, Math.min(CHAIN_INSTANCES, start + 1000))
                    .mapToObj(i -> StartRequest.of(new Sample(i))).toList());
        }
        if (analyze) {
            jdbc.execute("ANALYZE " + SCHEMA + ".durable_instance");
        }
        double jvmBefore = CpuUse.jvmCpuNanos() / 1e9;
        double postgresBefore = postgresCpu == null ? Double.NaN : postgresCpu.seconds();
        long begin = System.nanoTime();
        engine.start();
        applied.awaitCount(CHAIN_INSTANCES * 10L, Duration.ofMinutes(10));
        double seconds = (System.nanoTime() - begin) / 1e9;
        double jvm = CpuUse.jvmCpuNanos() / 1e9 - jvmBefore;
        double postgres = postgresCpu == null ? Double.NaN : postgresCpu.seconds() - postgresBefore;
        engine.close();
        note("b (" + (inline ? "inline" : "not inline") + "): " + CHAIN_INSTANCES * 10 + " steps in "
                + String.format(Locale.ROOT, "%.2f", seconds) + " s; " + describe(engine)
                + String.format(Locale.ROOT, "; cpu: jvm=%.2fs postgres=%.2fs", jvm, postgres));
        return new Drained(CHAIN_INSTANCES * 10 / seconds, jvm, postgres);
    }

    // ------------------------------------------------------------------ (u)

    /**
     * (u) The cost of a step against PostgreSQL's own commit rate (issue 29): in each round, pgbench committing
     * single-row UPDATEs at 10, 50 and 100 clients (its best counts), one-step no-op instances drained by the engine
     * at its defaults, and ten-step chains with inline execution at the defaults and at {@link #CONCURRENCY} slots,
     * all on an analyzed table (cached plans, as on a node that has run a while); each drain's CPU per step, the JVM's
     * and PostgreSQL's. Medians of the rounds; the ratio is the median of each
     * round's engine rate over that round's pgbench best.
     */
    private void stepCost() throws Exception {
        TestPostgres postgres = TestPostgres.get();
        int seconds = Integer.getInteger("bench.pgbenchSeconds", 10); // 0: the engine's figures only (profiling)
        PgBench pgbench = seconds == 0 ? null : PgBench.find(postgres.jdbcUrl(), postgres.username(), jdbc, SCHEMA);
        drain("warm-up", PEER_N, i -> StartOptions.defaults(), true, QueueSettings.defaults());
        measuredChain(true, false, true, settings -> settings.queue("default", QueueSettings.defaults()));
        double[] baseline = new double[ROUNDS];
        double[] engine = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        double[] jvm = new double[ROUNDS];
        double[] database = new double[ROUNDS];
        Map<String, double[][]> chains = new LinkedHashMap<>();
        chains.put("defaults", new double[3][ROUNDS]);
        chains.put(CONCURRENCY + "_slots", new double[3][ROUNDS]);
        for (int round = 0; round < ROUNDS; round++) {
            if (pgbench != null) {
                pgbench.prepare();
                for (int clients : new int[] {10, 50, 100}) {
                    baseline[round] = Math.max(baseline[round], pgbench.commitsPerSecond(clients, seconds));
                }
                jdbc.execute("DROP TABLE " + SCHEMA + ".pgbench_one_row");
            }
            Drained drained = measuredDrain("u (defaults)", PEER_N, i -> StartOptions.defaults(), true,
                    QueueSettings.defaults(), UnaryOperator.identity());
            engine[round] = drained.rate();
            ratio[round] = pgbench == null ? Double.NaN : engine[round] / baseline[round];
            jvm[round] = drained.jvmCpuSeconds() / PEER_N;
            database[round] = drained.postgresCpuSeconds() / PEER_N;
            for (Map.Entry<String, double[][]> chain : chains.entrySet()) {
                QueueSettings queue = chain.getKey().equals("defaults") ? QueueSettings.defaults() : QUEUE;
                Drained steps = measuredChain(true, false, true, settings -> settings.queue("default", queue));
                chain.getValue()[0][round] = steps.rate();
                chain.getValue()[1][round] = steps.jvmCpuSeconds() / (CHAIN_INSTANCES * 10.0);
                chain.getValue()[2][round] = steps.postgresCpuSeconds() / (CHAIN_INSTANCES * 10.0);
            }
        }
        if (pgbench != null) {
            report("u.pgbench_single_row_commits", median(baseline), "commits/s", "best of 10,50,100 clients, "
                    + seconds + " s each; median_of=" + ROUNDS + " all=" + Arrays.toString(round(baseline)));
        }
        report("u.durable_defaults", median(engine), "instances/s", "concurrency="
                + QueueSettings.DEFAULT_CONCURRENCY + " batch=" + QueueSettings.DEFAULT_BATCH_SIZE + " n=" + PEER_N
                + " all=" + Arrays.toString(round(engine)));
        report("u.ratio_to_pgbench", median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));
        report("u.cpu_per_step", (median(jvm) + median(database)) * 1e6, "us", "jvm=" + micros(median(jvm))
                + " postgres=" + micros(median(database)));
        for (Map.Entry<String, double[][]> chain : chains.entrySet()) {
            double[][] figures = chain.getValue();
            report("u.chain_inline_" + chain.getKey(), median(figures[0]), "steps/s", "instances="
                    + CHAIN_INSTANCES + " steps=10 cpu_per_step=" + micros(median(figures[1]) + median(figures[2]))
                    + " (jvm=" + micros(median(figures[1])) + " postgres=" + micros(median(figures[2])) + ") all="
                    + Arrays.toString(round(figures[0])));
        }
    }

    // ------------------------------------------------------------------ (h)

    /**
     * (h) The price of the history: (a) and (b, not inline) with history on and off, interleaved round by round; the
     * ratios of each round's two figures, as medians. And the price of its patches (docs/DESIGN.md, "History"): (a)
     * with history and patches (the default) and with history without patches; a ten-step chain whose every step
     * changes the state, with and without patches; and what one patch costs to compute, in Java and in PostgreSQL.
     */
    private void historyCost() throws Exception {
        patchComputation();
        double[] oneStepOn = new double[ROUNDS];
        double[] oneStepOff = new double[ROUNDS];
        double[] oneStepRatio = new double[ROUNDS];
        double[] oneStepNoPatches = new double[ROUNDS];
        double[] oneStepPatchRatio = new double[ROUNDS];
        double[] chainOn = new double[ROUNDS];
        double[] chainOff = new double[ROUNDS];
        double[] chainRatio = new double[ROUNDS];
        double[] changingOn = new double[ROUNDS];
        double[] changingNoPatches = new double[ROUNDS];
        double[] changingRatio = new double[ROUNDS];
        UnaryOperator<EngineSettings.Builder> off = settings -> settings.history(false);
        UnaryOperator<EngineSettings.Builder> noPatches = settings -> settings.historyPatchMaxBytes(0);
        for (int round = 0; round < ROUNDS; round++) {
            oneStepOff[round] = drain("h (a, history off)", N, i -> StartOptions.defaults(), true, QUEUE, off);
            oneStepNoPatches[round] = drain("h (a, history on, no patches)", N, i -> StartOptions.defaults(), true,
                    QUEUE, noPatches);
            oneStepOn[round] = drain("h (a, history on)", N, i -> StartOptions.defaults(), true, QUEUE,
                    UnaryOperator.identity());
            oneStepRatio[round] = oneStepOn[round] / oneStepOff[round];
            oneStepPatchRatio[round] = oneStepOn[round] / oneStepNoPatches[round];
            chainOff[round] = chainThroughput(false, off);
            chainOn[round] = chainThroughput(false, UnaryOperator.identity());
            chainRatio[round] = chainOn[round] / chainOff[round];
            changingNoPatches[round] = chainThroughput(false, true, noPatches);
            changingOn[round] = chainThroughput(false, true, UnaryOperator.identity());
            changingRatio[round] = changingOn[round] / changingNoPatches[round];
        }
        clean();
        report("h.one_step_history_no_patches", median(oneStepNoPatches), "instances/s",
                "all=" + Arrays.toString(round(oneStepNoPatches)));
        report("h.one_step_ratio_patches_to_no_patches", median(oneStepPatchRatio), "x", "median_of=" + ROUNDS
                + " ratios=" + twoDecimals(oneStepPatchRatio));
        report("h.changing_chain_patches", median(changingOn), "steps/s",
                "all=" + Arrays.toString(round(changingOn)));
        report("h.changing_chain_no_patches", median(changingNoPatches), "steps/s",
                "all=" + Arrays.toString(round(changingNoPatches)));
        report("h.changing_chain_ratio_patches_to_no_patches", median(changingRatio), "x", "median_of=" + ROUNDS
                + " ratios=" + twoDecimals(changingRatio));
        report("h.one_step_history_on", median(oneStepOn), "instances/s", "all=" + Arrays.toString(round(oneStepOn)));
        report("h.one_step_history_off", median(oneStepOff), "instances/s",
                "all=" + Arrays.toString(round(oneStepOff)));
        report("h.one_step_ratio_on_to_off", median(oneStepRatio), "x", "median_of=" + ROUNDS + " ratios="
                + twoDecimals(oneStepRatio));
        report("h.chain_history_on", median(chainOn), "steps/s", "all=" + Arrays.toString(round(chainOn)));
        report("h.chain_history_off", median(chainOff), "steps/s", "all=" + Arrays.toString(round(chainOff)));
        report("h.chain_ratio_on_to_off", median(chainRatio), "x", "median_of=" + ROUNDS + " ratios="
                + twoDecimals(chainRatio));
    }

    /** A typical state of an order: a customer, an address, five lines, notes. */
    private static ObjectNode typicalOrder(int seed) {
        ObjectNode order = JsonNodeFactory.instance.objectNode().put("id", "order-" + seed)
                .put("customer", "Ada Lovelace").put("status", "reserved").put("totalCents", 12_990 + seed);
        order.putObject("address").put("street", "12 St James's Square").put("city", "London")
                .put("postcode", "SW1Y 4JH").put("country", "GB");
        ArrayNode lines = order.putArray("lines");
        for (int k = 0; k < 5; k++) {
            lines.addObject().put("sku", "SKU-" + (1000 + k)).put("quantity", 1 + k % 3).put("priceCents", 2_598);
        }
        order.putObject("notes").put("gift", "yes").put("delivery", "leave with the neighbour");
        return order;
    }

    /**
     * What one patch costs to compute, for a typical state (an order of about 600 bytes whose step changes its status
     * and one line's quantity, adds a line and drops a note): in Java, as the engine computes it on the step's thread
     * (both states parsed, walked, the patch written), and in PostgreSQL, by a PL/pgSQL function of the same walk over
     * the two jsonb values, its server time per patch less that of the same statement without the function; and what a
     * step that changes nothing costs in Java (the equality walk that finds no change).
     */
    private void patchComputation() {
        int n = 20_000;
        JsonMapper mapper = JsonMapper.builder().build();
        List<String> before = new ArrayList<>(n);
        List<String> after = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            ObjectNode order = typicalOrder(k);
            before.add(mapper.writeValueAsString(order));
            ObjectNode changed = order.deepCopy();
            changed.put("status", "paid");
            ((ObjectNode) changed.get("lines").get(2)).put("quantity", 7);
            ((ArrayNode) changed.get("lines")).addObject().put("sku", "SKU-2000").put("quantity", 1)
                    .put("priceCents", 499);
            ((ObjectNode) changed.get("notes")).remove("gift");
            after.add(mapper.writeValueAsString(changed));
        }
        // The stored side comes from jsonb, in its key order and spacing, as the pick reads it.
        jdbc.execute("DROP TABLE IF EXISTS " + SCHEMA + ".bench_patch");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".bench_patch (id int PRIMARY KEY, a jsonb NOT NULL,"
                + " b jsonb NOT NULL)");
        jdbc.batchUpdate("INSERT INTO " + SCHEMA + ".bench_patch VALUES (?, ?::jsonb, ?::jsonb)",
                IntStream.range(0, n).mapToObj(k -> new Object[] {k, before.get(k), after.get(k)}).toList());
        List<String> stored = jdbc.queryForList("SELECT a::text FROM " + SCHEMA + ".bench_patch ORDER BY id",
                String.class);
        StatePatches patches = new StatePatches(EngineSettings.DEFAULT_HISTORY_PATCH_MAX_BYTES);
        long bytes = 0;
        for (int pass = 0; pass < 3; pass++) { // the first two warm up
            bytes = 0;
            long begin = System.nanoTime();
            for (int k = 0; k < n; k++) {
                bytes += patches.between(stored.get(k), after.get(k)).length();
            }
            double micros = (System.nanoTime() - begin) / 1e3 / n;
            long same = System.nanoTime();
            for (int k = 0; k < n; k++) {
                if (patches.between(stored.get(k), before.get(k)) != null) {
                    throw new IllegalStateException("an unchanged state gave a patch");
                }
            }
            double unchanged = (System.nanoTime() - same) / 1e3 / n;
            if (pass == 2) {
                report("h.patch_java", micros, "us/patch", "n=" + n + " state_bytes=" + before.get(0).length()
                        + " patch_bytes=" + bytes / n + " thread=1");
                report("h.patch_java_unchanged", unchanged, "us/step", "n=" + n + " (the walk that finds no change)");
            }
        }
        jdbc.execute("""
                CREATE OR REPLACE FUNCTION %s.bench_json_patch(a jsonb, b jsonb, path text DEFAULT '')
                RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
                DECLARE
                    ops jsonb := '[]';
                    k text;
                    v jsonb;
                    n int;
                    m int;
                BEGIN
                    IF a = b THEN
                        RETURN ops;
                    END IF;
                    IF jsonb_typeof(a) = 'object' AND jsonb_typeof(b) = 'object' THEN
                        FOR k, v IN SELECT * FROM jsonb_each(a) LOOP
                            IF b ? k THEN
                                ops := ops || %s.bench_json_patch(v, b -> k,
                                    path || '/' || replace(replace(k, '~', '~0'), '/', '~1'));
                            ELSE
                                ops := ops || jsonb_build_object('op', 'remove',
                                    'path', path || '/' || replace(replace(k, '~', '~0'), '/', '~1'));
                            END IF;
                        END LOOP;
                        FOR k, v IN SELECT * FROM jsonb_each(b) LOOP
                            IF NOT a ? k THEN
                                ops := ops || jsonb_build_array(jsonb_build_object('op', 'add',
                                    'path', path || '/' || replace(replace(k, '~', '~0'), '/', '~1'), 'value', v));
                            END IF;
                        END LOOP;
                        RETURN ops;
                    END IF;
                    IF jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN
                        n := jsonb_array_length(a);
                        m := jsonb_array_length(b);
                        FOR i IN 0 .. least(n, m) - 1 LOOP
                            ops := ops || %s.bench_json_patch(a -> i, b -> i, path || '/' || i);
                        END LOOP;
                        FOR i IN REVERSE n - 1 .. m LOOP
                            ops := ops || jsonb_build_object('op', 'remove', 'path', path || '/' || i);
                        END LOOP;
                        FOR i IN n .. m - 1 LOOP
                            ops := ops || jsonb_build_array(jsonb_build_object('op', 'add', 'path', path || '/' || i,
                                'value', b -> i));
                        END LOOP;
                        RETURN ops;
                    END IF;
                    RETURN jsonb_build_array(jsonb_build_object('op', 'replace', 'path', path, 'value', b));
                END
                $$
                """.formatted(SCHEMA, SCHEMA, SCHEMA));
        String withFunction = "SELECT sum(length(" + SCHEMA + ".bench_json_patch(a, b)::text)) FROM " + SCHEMA
                + ".bench_patch";
        String without = "SELECT sum(length(b::text)) FROM " + SCHEMA + ".bench_patch";
        double functionMicros = 0;
        double baseMicros = 0;
        long postgresBytes = 0;
        for (int pass = 0; pass < 3; pass++) {
            long begin = System.nanoTime();
            postgresBytes = jdbc.queryForObject(withFunction, Long.class);
            functionMicros = (System.nanoTime() - begin) / 1e3 / n;
            begin = System.nanoTime();
            jdbc.queryForObject(without, Long.class);
            baseMicros = (System.nanoTime() - begin) / 1e3 / n;
        }
        report("h.patch_postgres", functionMicros - baseMicros, "us/patch", "n=" + n + " patch_bytes="
                + postgresBytes / n + String.format(Locale.ROOT, " statement_us_per_row=%.2f baseline_us_per_row=%.2f",
                functionMicros, baseMicros) + " (PL/pgSQL, one backend)");
        jdbc.execute("DROP TABLE " + SCHEMA + ".bench_patch");
    }

    // ------------------------------------------------------------------ (k)

    /**
     * (k) Fan-out and fan-in: one step starts {@link #FAN_OUT} children (no-op machines) and awaits them all; the time
     * from the parent's start to its commit of the children, and to its wake-up after the last child ended.
     */
    private void fanOutAndJoin() throws Exception {
        double[] fanOut = new double[ROUNDS];
        double[] join = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            clean();
            AtomicLong childrenCommitted = new AtomicLong();
            CountDownLatch joined = new CountDownLatch(1);
            MachineDefinition child = MachineDefinition.builder("child", 1, Sample.class)
                    .step("only", (state, ctx) -> Outcome.done(state.index()))
                    .build();
            MachineDefinition parent = MachineDefinition.builder("parent", 1, Sample.class)
                    .step("split", (state, ctx) -> {
                        if (ctx.childrenStarted() == 0) {
                            return Outcome.awaitChildren(state).startingChildren(IntStream.range(0, FAN_OUT)
                                    .mapToObj(i -> Child.of("child", new Sample(i))).toList());
                        }
                        joined.countDown();
                        return Outcome.done(ctx.childrenEnded());
                    })
                    .build();
            DurableEngine engine = engine(MachineRegistry.of(parent, child), new DurableListener() {
                @Override
                public void stepFinished(StepEvent event) {
                    if (event.machine().equals("parent") && childrenCommitted.get() == 0) {
                        childrenCommitted.set(System.nanoTime());
                    }
                }
            }, settings -> settings.queue("default", QUEUE));
            engine.start();
            long begin = System.nanoTime();
            engine.client().start("parent", new Sample(0));
            if (!joined.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the parent was not woken");
            }
            long end = System.nanoTime();
            engine.close();
            fanOut[round] = (childrenCommitted.get() - begin) / 1e6;
            join[round] = (end - begin) / 1e6;
            note("k: " + FAN_OUT + " children started in " + String.format(Locale.ROOT, "%.0f", fanOut[round])
                    + " ms, parent woken after " + String.format(Locale.ROOT, "%.0f", join[round]) + " ms; "
                    + describe(engine));
        }
        clean();
        report("k.fan_out_commit", median(fanOut), "ms", "children=" + FAN_OUT + " median_of=" + ROUNDS + " all="
                + Arrays.toString(round(fanOut)));
        report("k.fan_out_and_join", median(join), "ms", "children=" + FAN_OUT + " concurrency=" + CONCURRENCY
                + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(join)));
    }

    // ------------------------------------------------------------------ (c)

    /**
     * Local insert -> step start, one at a time on an otherwise idle engine with the default settings: the first
     * {@code LATENCY_SAMPLES} reported as the cold figure (the JIT still compiling the path: what a node just deployed
     * shows), the next as many as the figure of a node that has been running.
     */
    private void insertLatency() throws Exception {
        long[][] samples = insertLatency(UnaryOperator.identity());
        reportColdAndWarm("c.insert_to_step_start", samples[0], samples[1]);
    }

    /** Local insert -> step start, one at a time, with the default settings adjusted: {sent, started} per sample. */
    private long[][] insertLatency(UnaryOperator<EngineSettings.Builder> adjust) throws Exception {
        clean();
        int count = 2 * LATENCY_SAMPLES;
        long[] sent = new long[count];
        long[] started = new long[count];
        CountDownLatch[] startedLatch = latches(count);
        MachineDefinition machine = MachineDefinition.builder("latency", 1, Sample.class)
                .step("only", (state, ctx) -> {
                    started[state.index()] = System.nanoTime();
                    startedLatch[state.index()].countDown();
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engine(MachineRegistry.of(machine), DurableListener.NONE, adjust);
        engine.start();
        DurableClient client = engine.client();
        for (int i = 0; i < count; i++) {
            sent[i] = System.nanoTime();
            client.start("latency", new Sample(i));
            startedLatch[i].await(10, TimeUnit.SECONDS);
        }
        engine.close();
        return new long[][] {sent, started};
    }

    /**
     * Signal -> woken step start, one at a time, default settings; cold and warm as for the insert. The signal carries
     * a {@link Sample} when {@code payload}, which the machine declares when {@code declared}.
     */
    private void signalLatency(String name, boolean declared, boolean payload) throws Exception {
        clean();
        int count = 2 * LATENCY_SAMPLES;
        long[] sent = new long[count];
        long[] started = new long[count];
        CountDownLatch[] woken = latches(count);
        MachineDefinition.Builder<Sample> builder = MachineDefinition.builder("wake", 1, Sample.class);
        if (declared) {
            builder.signal("go", Sample.class);
        }
        MachineDefinition machine = builder
                .step("wait", (state, ctx) -> {
                    if (ctx.awaited("go").isEmpty()) {
                        return Outcome.await("go", state);
                    }
                    started[state.index()] = System.nanoTime();
                    woken[state.index()].countDown();
                    return Outcome.done();
                })
                .build();
        CountingListener parked = new CountingListener();
        DurableEngine engine = engine(MachineRegistry.of(machine), parked, UnaryOperator.identity());
        engine.start();
        DurableClient client = engine.client();
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = client.start("wake", new Sample(i)).id();
        }
        parked.awaitCount(count, Duration.ofMinutes(2));
        for (int i = 0; i < count; i++) {
            sent[i] = System.nanoTime();
            client.signal(ids[i], "go", payload ? new Sample(i) : null);
            woken[i].await(10, TimeUnit.SECONDS);
        }
        engine.close();
        reportColdAndWarm(name, sent, started);
    }

    /** The first half of the samples as {@code name_cold}, the second as {@code name}. */
    private void reportColdAndWarm(String name, long[] sent, long[] started) {
        int half = sent.length / 2;
        reportLatency(name + "_cold", Arrays.copyOfRange(sent, 0, half), Arrays.copyOfRange(started, 0, half));
        reportLatency(name, Arrays.copyOfRange(sent, half, sent.length),
                Arrays.copyOfRange(started, half, started.length));
    }

    // ------------------------------------------------------------------ (f)

    private void heapPerInFlightStep() throws Exception {
        clean();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allRunning = new CountDownLatch(IN_FLIGHT);
        MachineDefinition machine = MachineDefinition.builder("held", 1, Sample.class)
                .step("hold", (state, ctx) -> {
                    allRunning.countDown();
                    release.await();
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engine(MachineRegistry.of(machine), DurableListener.NONE, settings -> settings
                .queue("default", new QueueSettings(IN_FLIGHT, 200)));
        engine.start();
        long before = usedHeapAfterGc();
        engine.client().startAll("held", IntStream.range(0, IN_FLIGHT).mapToObj(i -> StartRequest.of(new Sample(i)))
                .toList());
        allRunning.await(5, TimeUnit.MINUTES);
        long during = usedHeapAfterGc();
        release.countDown();
        engine.close();
        report("f.heap_per_in_flight_step", (during - before) / (double) IN_FLIGHT, "bytes",
                "in_flight=" + IN_FLIGHT + " threads=" + (engine.settings().virtualThreads() ? "virtual" : "platform"));
    }

    private void heapWithAwaitingInstances() throws Exception {
        clean();
        MachineDefinition machine = MachineDefinition.builder("parked", 1, Sample.class)
                .step("wait", (state, ctx) -> Outcome.await("never", state))
                .build();
        CountingListener parked = new CountingListener();
        DurableEngine engine = engine(MachineRegistry.of(machine), parked, settings -> settings
                .queue("default", new QueueSettings(CONCURRENCY, BATCH)));
        engine.start();
        engine.client().startAll("parked", IntStream.range(0, 1000).mapToObj(i -> StartRequest.of(new Sample(i)))
                .toList());
        parked.awaitCount(1000, Duration.ofMinutes(2));
        long withThousand = usedHeapAfterGc();
        for (int from = 1000; from < AWAITING; from += 1000) {
            int start = from;
            engine.client().startAll("parked", IntStream.range(start, Math.min(AWAITING, start + 1000))
                    .mapToObj(i -> StartRequest.of(new Sample(i))).toList());
        }
        parked.awaitCount(AWAITING, Duration.ofMinutes(10));
        long withAll = usedHeapAfterGc();
        engine.close();
        report("f.node_heap_with_awaiting", withAll / 1024.0 / 1024.0, "MiB", "awaiting=" + AWAITING);
        report("f.heap_growth_1k_to_100k_awaiting", (withAll - withThousand) / 1024.0 / 1024.0, "MiB", "");
    }

    // ------------------------------------------------------------------ (v)

    /** The state of (v)'s in-flight machines, as most of their stored states read. */
    record Line(String sku, int qty) {
    }

    record Inventory(long order, List<Line> lines, @Nullable String note) {
    }

    /** The index of in-flight rows as schema v13 defines it (v11's, widened for the live counts). */
    private static final String STEP_INDEX = """
            CREATE INDEX IF NOT EXISTS durable_instance_step
                ON durable_bench.durable_instance (machine, machine_version, step, status, id)
                INCLUDE (queue, eligible_at, deadline, awaits_children)
                WHERE status IN ('runnable', 'awaiting_signal', 'failed')
            """;

    /**
     * (v) What the index of in-flight rows (schema v11, {@code durable_instance_step}, widened by v13) costs every
     * step: (a) with and without it, interleaved, the order alternating between rounds; the figure is the median of
     * the rounds' ratios.
     */
    private void stepIndexCost() throws Exception {
        double[] with = new double[ROUNDS];
        double[] without = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        drain("warm-up", N / 5, i -> StartOptions.defaults(), true);
        for (int round = 0; round < ROUNDS; round++) {
            for (boolean indexed : round % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                clean();
                if (indexed) {
                    jdbc.execute(STEP_INDEX);
                } else {
                    jdbc.execute("DROP INDEX IF EXISTS durable_bench.durable_instance_step");
                }
                double rate = drain(indexed ? "a (with the step index)" : "a (without the step index)", N,
                        i -> StartOptions.defaults(), false);
                if (indexed) {
                    with[round] = rate;
                } else {
                    without[round] = rate;
                }
            }
            ratio[round] = with[round] / without[round];
        }
        jdbc.execute(STEP_INDEX);
        report("v.a_without_step_index", median(without), "instances/s", "n=" + N + " median_of=" + ROUNDS + " all="
                + Arrays.toString(round(without)));
        report("v.a_with_step_index", median(with), "instances/s", "n=" + N + " median_of=" + ROUNDS + " all="
                + Arrays.toString(round(with)));
        report("v.step_index_ratio", median(ratio), "x", "median_of=" + ROUNDS + " ratios=" + twoDecimals(ratio));
    }

    /**
     * (v) The in-flight report, the deploy check and the live counts over INVENTORY_ROWS in-flight instances in 48
     * groups (4 machines, 2 versions, 3 steps, runnable or parked), against code registering version 2 of each machine
     * with two of the steps: the first and the median of five of each; the same with a tenth of the instances, and with ten times
     * the groups, to show what the time follows; then (a) while another node checks the deploy once a second, and
     * back to back, against (a) alone, interleaved, the order turning between rounds.
     */
    private void inFlightAndDeployCheck() throws Exception {
        List<MachineDefinition> checked = new ArrayList<>();
        for (int machine = 0; machine < 40; machine++) {
            checked.add(MachineDefinition.builder("inv-" + machine, 2, Inventory.class)
                    .queue("parked")
                    .initialStep("s0")
                    .step("s0", (state, ctx) -> Outcome.done())
                    .step("s1", (state, ctx) -> Outcome.done())
                    .build());
        }
        // A node of the next release: it runs no queue here, it only checks.
        DurableEngine checker = engine(MachineRegistry.of(checked), DurableListener.NONE, settings -> settings
                .nodeName("checker").queue("default", new QueueSettings(0, 1)).queue("parked", new QueueSettings(0, 1))
                .deployCheck(DeployCheck.Mode.OFF));

        timeInventory(checker, INVENTORY_ROWS / 10, 4, "v.rows_" + INVENTORY_ROWS / 10 + "_groups_48");
        timeInventory(checker, INVENTORY_ROWS, 40, "v.rows_" + INVENTORY_ROWS + "_groups_480");
        timeInventory(checker, INVENTORY_ROWS, 4, "v.rows_" + INVENTORY_ROWS + "_groups_48");

        // Each round drains (a) alone, while the deploy is checked once a second (an operator or a dashboard polling
        // /actuator/durable/deploy-check; a node held back checks once per reaper interval, 30 s), and while it is
        // checked back to back; the order turns between rounds.
        String[] modes = {"alone", "checked every second", "checked back to back"};
        double[][] rate = new double[modes.length][ROUNDS];
        List<List<Double>> checkMillis = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                new CopyOnWriteArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            for (int step = 0; step < modes.length; step++) {
                int mode = (round + step) % modes.length;
                jdbc.update("DELETE FROM " + SCHEMA + ".durable_instance WHERE machine = 'noop'");
                jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_instance");
                AtomicBoolean drained = new AtomicBoolean();
                ExecutorService checks = Executors.newSingleThreadExecutor();
                List<Double> millis = checkMillis.get(mode);
                Future<?> loop = checks.submit(() -> {
                    while (mode > 0 && !drained.get()) {
                        long begin = System.nanoTime();
                        checker.checkDeploy();
                        long took = System.nanoTime() - begin;
                        millis.add(took / 1e6);
                        if (mode == 1) {
                            // pacing: the check's period, not synchronization
                            Thread.sleep(Math.max(0, 1000 - took / 1_000_000));
                        }
                    }
                    return null;
                });
                rate[mode][round] = drain("a " + modes[mode] + " (in-flight rows kept)", N,
                        i -> StartOptions.defaults(), false, QUEUE,
                        settings -> settings.deployCheck(DeployCheck.Mode.OFF));
                drained.set(true);
                loop.get();
                checks.shutdown();
            }
        }
        checker.close();
        clean();
        report("v.a_with_in_flight_rows", median(rate[0]), "instances/s", "in_flight=" + INVENTORY_ROWS + " n=" + N
                + " median_of=" + ROUNDS + " all=" + Arrays.toString(round(rate[0])));
        String[] names = {"", "checked_every_second", "checked_back_to_back"};
        for (int mode = 1; mode < modes.length; mode++) {
            double[] ratio = new double[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                ratio[round] = rate[mode][round] / rate[0][round];
            }
            double[] took = checkMillis.get(mode).stream().mapToDouble(Double::doubleValue).toArray();
            report("v.a_" + names[mode], median(rate[mode]), "instances/s", "in_flight=" + INVENTORY_ROWS + " n=" + N
                    + " checks=" + took.length + " check_ms_median=" + Math.round(median(took)) + " median_of="
                    + ROUNDS + " all=" + Arrays.toString(round(rate[mode])));
            report("v.ratio_to_a_" + names[mode], median(ratio), "x", "median_of=" + ROUNDS + " ratios="
                    + twoDecimals(ratio));
        }
    }

    /**
     * Fills the table with {@code rows} in-flight instances of {@code machines} machines (12 groups each: 2 versions, 3
     * steps, runnable or parked), one in ten of another shape, a pending signal on one parked instance in a hundred;
     * then times the report, the check and the live counts: the first of each, and the median of INVENTORY_REPEATS.
     */
    private void timeInventory(DurableEngine checker, int rows, int machines, String name) {
        clean();
        jdbc.update("""
                INSERT INTO durable_bench.durable_instance (machine, machine_version, step, state, queue, status,
                                                            eligible_at, awaits)
                SELECT 'inv-' || (g % ?), 1 + (g / ?) % 2, 's' || (g / ? / 2) % 3,
                       CASE WHEN g % 10 = 0 THEN jsonb_build_object('order', g, 'reservation', 'R-' || g)
                            ELSE jsonb_build_object('order', g, 'lines',
                                                    jsonb_build_array(jsonb_build_object('sku', 'A', 'qty', 1)),
                                                    'note', NULL) END,
                       'parked',
                       (CASE WHEN (g / ? / 6) % 2 = 0 THEN 'runnable'
                             ELSE 'awaiting_signal' END)::durable_bench.durable_status,
                       now() + interval '1 day',
                       CASE WHEN (g / ? / 6) % 2 = 1 THEN 'payment' END
                FROM generate_series(1, ?) g
                """, machines, machines, machines, machines, machines, rows);
        jdbc.update("""
                INSERT INTO durable_bench.durable_signal (instance_id, name)
                SELECT id, 'payment' FROM durable_bench.durable_instance
                WHERE status = 'awaiting_signal' AND id % 100 = 1
                """);
        jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_instance");
        jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_signal");
        double[] report = new double[INVENTORY_REPEATS];
        double[] check = new double[INVENTORY_REPEATS];
        double[] counts = new double[INVENTORY_REPEATS];
        int groups = 0;
        for (int i = 0; i < INVENTORY_REPEATS; i++) {
            long begin = System.nanoTime();
            groups = checker.client().inFlight().groups().size();
            report[i] = (System.nanoTime() - begin) / 1e6;
            begin = System.nanoTime();
            checker.checkDeploy();
            check[i] = (System.nanoTime() - begin) / 1e6;
            // The live counts every node's metrics read (docs/DESIGN.md, "Counting instances"): every one of these
            // in-flight rows, from the index alone.
            begin = System.nanoTime();
            checker.client().countLive();
            counts[i] = (System.nanoTime() - begin) / 1e6;
        }
        String details = "rows=" + rows + " groups=" + groups + " first=" + Math.round(report[0]) + "ms all="
                + Arrays.toString(round(report));
        report(name + ".in_flight_ms", median(report), "ms", details);
        report(name + ".deploy_check_ms", median(check), "ms", "rows=" + rows + " groups=" + groups + " first="
                + Math.round(check[0]) + "ms all=" + Arrays.toString(round(check)));
        report(name + ".count_live_ms", median(counts), "ms", "rows=" + rows + " groups=" + groups + " first="
                + Math.round(counts[0]) + "ms all=" + Arrays.toString(round(counts)));
    }

    // ------------------------------------------------------------------ helpers

    DurableEngine engine(MachineRegistry machines, DurableListener listener,
            UnaryOperator<EngineSettings.Builder> adjust) {
        return engine(dataSource, machines, listener, adjust);
    }

    private DurableEngine engine(DataSource dataSource, MachineRegistry machines, DurableListener listener,
            UnaryOperator<EngineSettings.Builder> adjust) {
        EngineSettings.Builder settings = EngineSettings.builder()
                .nodeName("bench")
                .schema(SCHEMA)
                .wakeUps(WAKE_UPS)
                .virtualThreads(Runtime.version().feature() >= 21);
        return DurableEngine.builder(dataSource, machines)
                .settings(adjust.apply(settings).build())
                .listener(listener)
                .observationRegistry(observations())
                .build();
    }

    private static ObservationRegistry observations() {
        if (OBSERVATIONS.equals("bridge")) {
            return BridgeObservations.registry();
        }
        if (!OBSERVATIONS.equals("on")) {
            return ObservationRegistry.NOOP;
        }
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(context -> true);
        return registry;
    }

    /** How well the engine batched: rows per pick and outcomes per commit. */
    private static String describe(DurableEngine engine) {
        var stats = engine.stats();
        return String.format(Locale.ROOT, "rows/pick=%.1f outcomes/commit=%.1f picks=%d commits=%d fenced=%d",
                stats.picked() / (double) Math.max(1, stats.picks()),
                stats.outcomesCommitted() / (double) Math.max(1, stats.outcomeFlushes()), stats.picks(),
                stats.outcomeFlushes(), stats.outcomesFenced())
                + (OBSERVATIONS.equals("bridge") ? " spans_exported=" + BridgeObservations.EXPORTED.get() : "");
    }

    /** The schema dropped and made anew: empty tables, their statistics counters from zero. */
    void cleanAll() {
        TestPostgres.get().dropSchema(SCHEMA);
        DurableSchema.named(SCHEMA).migrate(dataSource);
    }

    /** A line for the run's closing list of results. */
    void result(String line) {
        results.add(line);
    }

    void clean() {
        jdbc.execute("TRUNCATE " + SCHEMA + ".durable_signal, " + SCHEMA + ".durable_instance");
        jdbc.execute("VACUUM ANALYZE " + SCHEMA + ".durable_instance");
    }

    private void describeEnvironment(TestPostgres postgres) {
        note("java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
                + jdbc.queryForObject("SELECT version()", String.class) + " (" + postgres.source() + ")");
        note("synchronous_commit=" + jdbc.queryForObject("SHOW synchronous_commit", String.class) + " fsync="
                + jdbc.queryForObject("SHOW fsync", String.class) + "; n=" + N + " concurrency=" + CONCURRENCY
                + " batch=" + BATCH + " observations=" + OBSERVATIONS + " cluster_limits=" + LIMITS);
    }

    private void reportLatency(String name, long[] sent, long[] started) {
        double[] millis = IntStream.range(0, sent.length)
                .mapToDouble(i -> (started[i] - sent[i]) / 1e6).sorted().toArray();
        report(name + ".p50", millis[millis.length / 2], "ms", "samples=" + millis.length);
        report(name + ".p99", millis[(int) Math.ceil(millis.length * 0.99) - 1], "ms", "samples=" + millis.length);
    }

    /** p50, p90 and p99 of sorted milliseconds. */
    private void reportPercentiles(String name, double[] sortedMillis) {
        for (int p : new int[] {50, 90, 99}) {
            report(name + ".p" + p, percentile(sortedMillis, p), "ms", "samples=" + sortedMillis.length);
        }
    }

    /** The nearest-rank percentile of sorted values. */
    private static double percentile(double[] sorted, int p) {
        return sorted[Math.max(0, (int) Math.ceil(sorted.length * p / 100.0) - 1)];
    }

    void report(String name, double value, String unit, String details) {
        String line = String.format(Locale.ROOT, "bench: %s value=%.3f unit=%s%s", name, value, unit,
                details.isEmpty() ? "" : " " + details);
        System.out.println(line);
        results.add(line);
    }

    static void note(String text) {
        System.out.println("# " + text);
    }

    private static CountDownLatch[] latches(int count) {
        CountDownLatch[] latches = new CountDownLatch[count];
        Arrays.setAll(latches, i -> new CountDownLatch(1));
        return latches;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200); // pacing only: gives the collector time to settle
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Where the CPU went during a measurement: this JVM, and everything else on the machine (on a quiet machine with
     * the database on it, that is PostgreSQL). Linux only; reports nothing elsewhere.
     */
    record CpuUse(long jvmNanos, long machineTicks) {

        static CpuUse start() {
            return new CpuUse(jvmCpuNanos(), machineBusyTicks());
        }

        String stop() {
            long ticks = machineBusyTicks() - machineTicks;
            if (machineTicks < 0 || ticks < 0) {
                return "cpu: n/a";
            }
            double machine = ticks / 100.0; // USER_HZ
            double jvm = (jvmCpuNanos() - jvmNanos) / 1e9;
            return String.format(Locale.ROOT, "cpu: jvm=%.2fs other(postgres)=%.2fs", jvm, Math.max(0, machine - jvm));
        }

        static long jvmCpuNanos() {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }

        private static long machineBusyTicks() {
            try {
                String[] cpu = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0)
                        .trim().split("\\s+");
                // user nice system idle iowait irq softirq steal: busy = all but idle and iowait
                return Long.parseLong(cpu[1]) + Long.parseLong(cpu[2]) + Long.parseLong(cpu[3])
                        + Long.parseLong(cpu[6]) + Long.parseLong(cpu[7]);
            } catch (Exception e) {
                return -1;
            }
        }
    }

    /** Counts applied outcomes; lets the benchmark wait for a number of them. */
    private static final class CountingListener implements DurableListener {

        private final AtomicLong applied = new AtomicLong();

        @Override
        public void stepFinished(StepEvent event) {
            if (event.fate() == StepEvent.Fate.COMMITTED) {
                applied.incrementAndGet();
            }
        }

        void awaitCount(long count, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (applied.get() < count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + applied.get() + " of " + count + " within " + timeout);
                }
                Thread.sleep(1); // the benchmark's own polling; not engine synchronization
            }
        }
    }
}
