package dev.durable.bench;

import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.StepEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The soak (scenario {@code soak}, not in {@code all}; docs/PERFORMANCE.md, "The soak"): a steady mixed workload
 * offered at a fixed rate, open loop, for {@code bench.soakMinutes} with retention on and the server's autovacuum,
 * reported per window of {@code bench.soakWindowMinutes}: throughput, start and wake latency, each table's and index's
 * size, dead tuples, HOT updates, autovacuum runs and the machine's load; at the end the three checks.
 *
 * <p>The mix, by share of starts (a partition key on a fifth of them, over {@link #PARTITION_KEYS} keys):
 * <ul>
 * <li>30 % {@code soak-one}: one step;</li>
 * <li>20 % {@code soak-chain}: five steps, each {@code next};</li>
 * <li>15 % {@code soak-wait}: a step awaiting signal {@code go}, sent {@link #SIGNAL_DELAY} after the await
 * committed; the wake latency is from the signal's send to the woken step's body;</li>
 * <li>15 % {@code soak-timer}: a step, then a durable timer of {@link #TIMER}, then a step;</li>
 * <li>10 % {@code soak-retry}: a step that throws on its first run and succeeds on its retry ({@link #RETRY_DELAY});</li>
 * <li>10 % {@code soak-parent}: a step starting three {@code soak-child} instances and awaiting them, then a step.</li>
 * </ul>
 * That is {@link #STEPS_PER_START} step executions per start, children included. The rate offered is
 * {@code bench.soakRate} starts/s, or else {@code bench.soakFraction} (0.5) of the one-step maximum measured first by
 * a drain of {@code bench.soakMaxInstances} at the default queue settings, in steps/s, divided by the steps per start.
 * Start latency: from the moment a start was due by the schedule (not when a thread got to it, so a start that waited
 * for a free starter counts its wait) to its first step's body.
 */
final class Soak {

    /** An instance's state: its index, when its start was due by the schedule and when a thread called start. */
    record Job(int index, long dueNanos, long calledNanos) {
    }

    static final int PARTITION_KEYS = 200;
    static final Duration SIGNAL_DELAY = Duration.ofMillis(100);
    static final Duration TIMER = Duration.ofMillis(500);
    static final Duration RETRY_DELAY = Duration.ofMillis(200);
    static final int CHILDREN = 3;
    /** Shares of starts in percent, in the order of {@link #MACHINES}. */
    static final int[] SHARES = {30, 20, 15, 15, 10, 10};
    static final String[] MACHINES = {"soak-one", "soak-chain", "soak-wait", "soak-timer", "soak-retry",
            "soak-parent"};
    static final int[] STEPS = {1, 5, 2, 2, 2, 2 + CHILDREN};
    static final double STEPS_PER_START;

    static {
        double steps = 0;
        for (int i = 0; i < SHARES.length; i++) {
            steps += SHARES[i] * STEPS[i] / 100.0;
        }
        STEPS_PER_START = steps;
    }

    private static final int MINUTES = Integer.getInteger("bench.soakMinutes", 60);
    private static final int WINDOW_MINUTES = Integer.getInteger("bench.soakWindowMinutes", 5);
    private static final double RATE = Double.parseDouble(System.getProperty("bench.soakRate", "0"));
    private static final double FRACTION = Double.parseDouble(System.getProperty("bench.soakFraction", "0.5"));
    private static final int MAX_SECONDS = Integer.getInteger("bench.soakMaxSeconds", 60);
    private static final int RETENTION_MINUTES = Integer.getInteger("bench.soakRetentionMinutes", 2);
    private static final int STARTERS = Integer.getInteger("bench.soakStarters", 8);
    /**
     * Storage parameters set on the fresh tables before the soak, e.g.
     * {@code durable_instance:fillfactor=70,autovacuum_vacuum_scale_factor=0.02;durable_signal:fillfactor=80}; empty:
     * the tables as the schema makes them.
     */
    private static final String TABLE_SETTINGS = System.getProperty("bench.soakTableSettings", "");
    /**
     * Ended rows put in the table before the soak and kept through it (their {@code updated_at} a day ahead, so the
     * soak's short retention does not take them): the table of a deployment whose retention keeps days of rows.
     */
    private static final int KEPT_ROWS = Integer.getInteger("bench.soakKeptRows", 0);

    private final Benchmark benchmark;
    private final JdbcTemplate jdbc;
    private final String schema;
    private SoakWindows starts;
    private SoakWindows wakes;
    private SoakWindows startsPartitioned;
    private SoakWindows startsFromCall;
    private SoakWindows startsUnpartitioned;
    private SoakWindows completed;
    private SoakWindows completedStarts;
    private SoakWindows steps;
    private final Map<Long, Long> signalSent = new ConcurrentHashMap<>();
    private final AtomicLong unexpected = new AtomicLong();

    Soak(Benchmark benchmark, JdbcTemplate jdbc, String schema) {
        this.benchmark = benchmark;
        this.jdbc = jdbc;
        this.schema = schema;
    }

    /**
     * {@code table:name=value,name=value;table:...} as each table's list of storage parameters, in order; refused with
     * the part at fault named unless every table and parameter name is lower-case letters, digits and underscores and
     * every value a number or such a word.
     */
    static Map<String, String> tableSettings(String spec) {
        Map<String, String> tables = new LinkedHashMap<>();
        if (spec.isBlank()) {
            return tables;
        }
        for (String part : spec.split(";")) {
            int colon = part.indexOf(':');
            String table = colon < 0 ? "" : part.substring(0, colon).strip();
            if (!table.matches("[a-z_][a-z0-9_]*")) {
                throw new IllegalArgumentException("bench.soakTableSettings: \"" + part.strip()
                        + "\" is not table:name=value,...");
            }
            List<String> parameters = new ArrayList<>();
            for (String parameter : part.substring(colon + 1).split(",")) {
                String[] nameValue = parameter.strip().split("=", -1);
                if (nameValue.length != 2 || !nameValue[0].strip().matches("[a-z_][a-z0-9_]*")
                        || !nameValue[1].strip().matches("[0-9.]+|[a-z_]+")) {
                    throw new IllegalArgumentException("bench.soakTableSettings: \"" + parameter.strip()
                            + "\" of table " + table + " is not name=value");
                }
                parameters.add(nameValue[0].strip() + " = " + nameValue[1].strip());
            }
            tables.put(table, String.join(", ", parameters));
        }
        return tables;
    }

    /** Which machine the start of this draw runs: by the shares. */
    static int machineOf(int draw) {
        int bound = 0;
        for (int i = 0; i < SHARES.length; i++) {
            bound += SHARES[i];
            if (draw < bound) {
                return i;
            }
        }
        throw new IllegalArgumentException("a draw is 0 to 99, not " + draw);
    }

    void run() throws Exception {
        if (MINUTES < WINDOW_MINUTES || WINDOW_MINUTES <= 0) {
            throw new IllegalArgumentException("bench.soakMinutes (" + MINUTES + ") must be at least one window of"
                    + " bench.soakWindowMinutes (" + WINDOW_MINUTES + "), which must be positive");
        }
        int windows = MINUTES / WINDOW_MINUTES;
        long windowNanos = TimeUnit.MINUTES.toNanos(WINDOW_MINUTES);
        Duration retention = Duration.ofMinutes(RETENTION_MINUTES);
        double rate = RATE;
        if (rate <= 0) {
            benchmark.cleanAll();
            double max = measureMax(retention);
            rate = FRACTION * max;
        }
        benchmark.cleanAll();
        for (Map.Entry<String, String> table : tableSettings(TABLE_SETTINGS).entrySet()) {
            jdbc.execute("ALTER TABLE " + schema + "." + table.getKey() + " SET (" + table.getValue() + ")");
            Benchmark.note("soak: " + table.getKey() + " SET (" + table.getValue() + ")");
        }
        if (KEPT_ROWS > 0) {
            jdbc.update("INSERT INTO " + schema + ".durable_instance (machine, machine_version, step, state, queue,"
                    + " status, result, created_at, updated_at)"
                    + " SELECT 'soak-kept', 1, 'only', '{\"index\": 1}', 'default', 'done', '\"ok\"', now(),"
                    + " now() + interval '1 day' FROM generate_series(1, ?)", KEPT_ROWS);
            jdbc.execute("VACUUM ANALYZE " + schema + ".durable_instance");
            Benchmark.note("soak: " + KEPT_ROWS + " ended rows kept through the soak");
        }
        Benchmark.note(String.format(Locale.ROOT,
                "soak: %d windows of %d min, offered %.1f starts/s (about %.0f steps/s at %.2f steps per start), "
                        + "retention %s for done, failed and cancelled, %d starter threads, autovacuum=%s",
                windows, WINDOW_MINUTES, rate, rate * STEPS_PER_START, STEPS_PER_START, retention, STARTERS,
                jdbc.queryForObject("SHOW autovacuum", String.class)));
        Benchmark.note("autovacuum settings: " + jdbc.queryForList("""
                SELECT name || '=' || setting || coalesce(unit, '') FROM pg_settings
                WHERE name LIKE 'autovacuum%' ORDER BY name""", String.class));

        long begin = System.nanoTime();
        windows(begin, windowNanos, windows);
        ScheduledExecutorService signals = Executors.newScheduledThreadPool(2, daemon("soak-signal"));
        DurableEngine engine = engine(retention, signals);
        engine.start();

        ExecutorService starters = Executors.newFixedThreadPool(STARTERS, daemon("soak-start"));
        double offered = rate;
        Thread pacer = new Thread(() -> pace(engine.client(), starters, begin, windows * windowNanos, offered),
                "soak-pacer");
        pacer.setDaemon(true);
        pacer.start();
        Stats previous = stats(engine);
        List<String> rows = new ArrayList<>();
        long[] totals = new long[windows];
        double[] rates = new double[windows];
        double[] startP99 = new double[windows];
        double[] wakeP99 = new double[windows];
        for (int w = 0; w < windows; w++) {
            long end = begin + (w + 1) * windowNanos;
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(Math.min(1_000_000_000L, end - System.nanoTime())); // pacing only
            }
            Stats now = stats(engine);
            rows.add(window(w + 1, previous, now, windowNanos / 1e9));
            totals[w] = now.totalBytes();
            rates[w] = completed.count(w) / (windowNanos / 1e9);
            startP99[w] = SoakWindows.percentile(starts.sorted(w), 99);
            wakeP99[w] = SoakWindows.percentile(wakes.sorted(w), 99);
            previous = now;
        }
        pacer.join();
        // Starts still waiting for a starter thread at the end: the starters fell behind the schedule.
        int behind = starters.shutdownNow().size();
        starters.awaitTermination(1, TimeUnit.MINUTES);
        Benchmark.note("soak: " + behind + " starts due by the end were still waiting for a starter thread");
        engine.close();
        signals.shutdownNow();

        System.out.println();
        System.out.println("# soak windows: window | load1 | completed/s | steps/s | start p50/p99 ms | wake p50/p99 ms"
                + " | instance table+indexes MiB | history table+indexes MiB | all tables total MiB"
                + " | instance dead tuples | instance HOT % | autovacuum runs (all tables) | retention deleted");
        rows.forEach(System.out::println);
        List<SoakWindows.Check> checks = List.of(
                SoakWindows.latency("start_p99", startP99[0], startP99[windows - 1], 1.5),
                SoakWindows.latency("wake_p99", wakeP99[0], wakeP99[windows - 1], 1.5),
                SoakWindows.throughput("completed", rates[0], rates[windows - 1], 0.10),
                SoakWindows.bounded("total_size", totals, 0.10));
        for (SoakWindows.Check check : checks) {
            System.out.println("# " + check.line());
            benchmark.result("soak check " + check.name() + ": " + (check.pass() ? "PASS" : "FAIL") + " ("
                    + check.detail() + ")");
        }
        if (unexpected.get() > 0) {
            System.out.println("# soak: " + unexpected.get() + " instances stopped (failed): unexpected");
        }
    }

    private void windows(long begin, long windowNanos, int windows) {
        starts = new SoakWindows(begin, windowNanos, windows);
        startsPartitioned = new SoakWindows(begin, windowNanos, windows);
        startsFromCall = new SoakWindows(begin, windowNanos, windows);
        startsUnpartitioned = new SoakWindows(begin, windowNanos, windows);
        wakes = new SoakWindows(begin, windowNanos, windows);
        completed = new SoakWindows(begin, windowNanos, windows);
        completedStarts = new SoakWindows(begin, windowNanos, windows);
        steps = new SoakWindows(begin, windowNanos, windows);
    }

    /** The soak's engine: its machines, retention, and the listener that counts and sends the signals. */
    private DurableEngine engine(Duration retention, ScheduledExecutorService signals) {
        DurableEngine[] holder = new DurableEngine[1];
        DurableListener listener = new DurableListener() {
            @Override
            public void stepFinished(StepEvent event) {
                if (event.fate() != StepEvent.Fate.COMMITTED) {
                    return;
                }
                long now = System.nanoTime();
                steps.event(now);
                if (event.outcome() == Outcome.Kind.DONE) {
                    completed.event(now);
                    if (!event.machine().equals("soak-child")) {
                        completedStarts.event(now);
                    }
                } else if (event.outcome() == Outcome.Kind.STOP) {
                    unexpected.incrementAndGet();
                } else if (event.outcome() == Outcome.Kind.AWAIT && event.machine().equals("soak-wait")) {
                    long id = event.instanceId();
                    signals.schedule(() -> {
                        signalSent.put(id, System.nanoTime());
                        holder[0].client().signal(id, "go", null);
                    }, SIGNAL_DELAY.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        };
        DurableEngine engine = benchmark.engine(machines(), listener, settings -> settings.nodeName("soak")
                .retentionDone(retention).retentionFailed(retention).retentionCancelled(retention));
        holder[0] = engine;
        return engine;

    }

    /**
     * The maximum of this mix on this machine: {@link #STARTERS} threads start mixed instances as fast as they can
     * (closed loop) for {@code bench.soakMaxSeconds} (60); over the part after the first third, the lesser of the
     * starts/s and the started instances completed/s (when the engine falls behind the starts, its completions are
     * the maximum; when the starts are the bottleneck, they are).
     */
    private double measureMax(Duration retention) throws Exception {
        long seconds = MAX_SECONDS;
        long begin = System.nanoTime();
        long third = TimeUnit.SECONDS.toNanos(seconds) / 3;
        windows(begin, third, 3);
        ScheduledExecutorService signals = Executors.newScheduledThreadPool(2, daemon("soak-signal"));
        DurableEngine engine = engine(retention, signals);
        engine.start();
        DurableClient client = engine.client();
        long end = begin + 3 * third;
        AtomicLong index = new AtomicLong();
        ExecutorService starters = Executors.newFixedThreadPool(STARTERS, daemon("soak-start"));
        List<java.util.concurrent.Future<?>> loops = new ArrayList<>();
        for (int t = 0; t < STARTERS; t++) {
            loops.add(starters.submit(() -> {
                Random random = new Random();
                while (System.nanoTime() < end) {
                    long now = System.nanoTime();
                    start(client, random, (int) index.getAndIncrement(), now);
                    starts.event(now);
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> loop : loops) {
            loop.get();
        }
        starters.shutdown();
        engine.close();
        signals.shutdownNow();
        double measured = 2 * third / 1e9;
        double started = (starts.count(1) + starts.count(2)) / measured;
        double done = (completedStarts.count(1) + completedStarts.count(2)) / measured;
        double max = Math.min(started, done);
        line("soak.max_starts", started, "starts/s", "closed_loop_threads=" + STARTERS + " seconds="
                + String.format(Locale.ROOT, "%.0f", measured) + " (after a third of " + seconds + " s)");
        line("soak.max_completed", done, "instances/s", "started instances completed (children not counted)");
        line("soak.max", max, "starts/s", "the lesser of the two; offered: " + FRACTION + " of it");
        return max;
    }

    /** One start of the mix: its machine and partition key drawn from {@code random}. */
    private static void start(DurableClient client, Random random, int index, long dueNanos) {
        int machine = machineOf(random.nextInt(100));
        boolean partitioned = random.nextInt(5) == 0;
        StartOptions options = partitioned
                ? StartOptions.defaults().partitionKey("key-" + random.nextInt(PARTITION_KEYS))
                : StartOptions.defaults();
        client.start(MACHINES[machine], new Job(index, dueNanos, System.nanoTime()), options);
    }

    /** Starts, each at its due moment, on the starter threads, until the run's end. */
    private void pace(DurableClient client, ExecutorService starters, long begin, long lengthNanos, double rate) {
        Random random = new Random(42);
        double intervalNanos = 1e9 / rate;
        for (int i = 0; ; i++) {
            long due = begin + (long) (i * intervalNanos);
            if (due - begin >= lengthNanos) {
                return;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait); // the schedule
            }
            int index = i;
            long seed = random.nextLong();
            starters.execute(() -> start(client, new Random(seed), index, due));
        }
    }

    private void started(Job job, StepContext ctx) {
        long now = System.nanoTime();
        double millis = (now - job.dueNanos()) / 1e6;
        starts.sample(now, millis);
        (ctx.partitionKey() == null ? startsUnpartitioned : startsPartitioned).sample(now, millis);
        startsFromCall.sample(now, (now - job.calledNanos()) / 1e6);
    }

    private MachineRegistry machines() {
        RetryPolicy retry = RetryPolicy.builder().delay(RETRY_DELAY).jitter(Duration.ZERO).maxAttempts(3).build();
        MachineDefinition one = MachineDefinition.builder("soak-one", 1, Job.class)
                .step("only", (job, ctx) -> {
                    started(job, ctx);
                    return Outcome.done();
                })
                .build();
        MachineDefinition chain = MachineDefinition.builder("soak-chain", 1, Job.class)
                .initialStep("s1")
                .step("s1", (job, ctx) -> {
                    started(job, ctx);
                    return Outcome.next("s2", job);
                })
                .step("s2", (job, ctx) -> Outcome.next("s3", job))
                .step("s3", (job, ctx) -> Outcome.next("s4", job))
                .step("s4", (job, ctx) -> Outcome.next("s5", job))
                .step("s5", (job, ctx) -> Outcome.done())
                .build();
        MachineDefinition await = MachineDefinition.builder("soak-wait", 1, Job.class)
                .step("wait", (job, ctx) -> {
                    if (ctx.awaited("go").isEmpty()) {
                        started(job, ctx);
                        return Outcome.await("go", job);
                    }
                    long now = System.nanoTime();
                    Long sent = signalSent.remove(ctx.instanceId());
                    if (sent != null) {
                        wakes.sample(now, (now - sent) / 1e6);
                    }
                    return Outcome.done();
                })
                .build();
        MachineDefinition timer = MachineDefinition.builder("soak-timer", 1, Job.class)
                .initialStep("before")
                .step("before", (job, ctx) -> {
                    started(job, ctx);
                    return Outcome.next("after", job, TIMER);
                })
                .step("after", (job, ctx) -> Outcome.done())
                .build();
        MachineDefinition flaky = MachineDefinition.builder("soak-retry", 1, Job.class)
                .retryPolicy(retry)
                .step("flaky", (job, ctx) -> {
                    if (ctx.attempt() == 0) {
                        started(job, ctx);
                        throw new IllegalStateException("the planned failure of the first run");
                    }
                    return Outcome.done();
                })
                .build();
        MachineDefinition parent = MachineDefinition.builder("soak-parent", 1, Job.class)
                .step("split", (job, ctx) -> {
                    if (ctx.childrenStarted() == 0) {
                        started(job, ctx);
                        List<Child> children = new ArrayList<>();
                        for (int c = 0; c < CHILDREN; c++) {
                            children.add(Child.of("soak-child", new Job(-1, 0, 0)));
                        }
                        return Outcome.awaitChildren(job).startingChildren(children);
                    }
                    return Outcome.done();
                })
                .build();
        MachineDefinition child = MachineDefinition.builder("soak-child", 1, Job.class)
                .step("only", (job, ctx) -> Outcome.done())
                .build();
        return MachineRegistry.of(one, chain, await, timer, flaky, parent, child);
    }

    // ------------------------------------------------------------------ the database's figures

    record Table(String name, long tableBytes, long indexBytes, long totalBytes, long live, long dead, long updates,
            long hotUpdates, long deletes, long autovacuums, long autoanalyzes) {
    }

    record Stats(Map<String, Table> tables, Map<String, Long> indexes, long retentionDeleted, String load) {

        long totalBytes() {
            return tables.values().stream().mapToLong(Table::totalBytes).sum();
        }
    }

    private Stats stats(DurableEngine engine) {
        Map<String, Table> tables = new LinkedHashMap<>();
        jdbc.query("""
                SELECT relname, pg_relation_size(relid), pg_indexes_size(relid), pg_total_relation_size(relid),
                       n_live_tup, n_dead_tup, n_tup_upd, n_tup_hot_upd, n_tup_del, autovacuum_count,
                       autoanalyze_count
                FROM pg_stat_user_tables WHERE schemaname = ? ORDER BY relname""", rs -> {
            tables.put(rs.getString(1), new Table(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                    rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10),
                    rs.getLong(11)));
        }, schema);
        Map<String, Long> indexes = new LinkedHashMap<>();
        jdbc.query("""
                SELECT indexrelname, pg_relation_size(indexrelid) FROM pg_stat_user_indexes
                WHERE schemaname = ? ORDER BY relname, indexrelname""",
                rs -> {
                    indexes.put(rs.getString(1), rs.getLong(2));
                }, schema);
        return new Stats(tables, indexes, engine.stats().retentionDeleted(), loadAverage());
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "n/a";
        }
    }

    /** Prints the window's figures, one a line, and returns its row of the summary table. */
    private String window(int window, Stats before, Stats after, double seconds) {
        int w = window - 1;
        String at = "window=" + window;
        String[] load = after.load().split("\\s+");
        double load1 = load.length >= 3 ? Double.parseDouble(load[0]) : Double.NaN;
        line("soak.load_average", load1, "load", at + " loadavg=\"" + after.load() + "\"");
        double completedRate = completed.count(w) / seconds;
        double stepRate = steps.count(w) / seconds;
        line("soak.completed", completedRate, "instances/s", at + " instances=" + completed.count(w));
        line("soak.completed_starts", completedStarts.count(w) / seconds, "instances/s",
                at + " instances=" + completedStarts.count(w) + " (children not counted)");
        line("soak.steps", stepRate, "steps/s", at + " steps=" + steps.count(w));
        double[] start = starts.sorted(w);
        double[] wake = wakes.sorted(w);
        line("soak.start_latency.p50", SoakWindows.percentile(start, 50), "ms", at + " samples=" + start.length);
        line("soak.start_latency.p99", SoakWindows.percentile(start, 99), "ms", at + " samples=" + start.length);
        line("soak.start_latency.max", SoakWindows.percentile(start, 100), "ms", at + " over_1s="
                + java.util.Arrays.stream(start).filter(ms -> ms > 1000).count());
        double[] fromCall = startsFromCall.sorted(w);
        line("soak.start_call_latency.p50", SoakWindows.percentile(fromCall, 50), "ms", at + " samples="
                + fromCall.length + " (from the start call, not from when it was due)");
        line("soak.start_call_latency.p99", SoakWindows.percentile(fromCall, 99), "ms", at + " samples="
                + fromCall.length);
        for (boolean partitioned : new boolean[] {true, false}) {
            double[] some = (partitioned ? startsPartitioned : startsUnpartitioned).sorted(w);
            String name = "soak.start_latency_" + (partitioned ? "partitioned" : "unpartitioned");
            line(name + ".p50", SoakWindows.percentile(some, 50), "ms", at + " samples=" + some.length);
            line(name + ".p99", SoakWindows.percentile(some, 99), "ms", at + " samples=" + some.length);
        }
        line("soak.wake_latency.p50", SoakWindows.percentile(wake, 50), "ms", at + " samples=" + wake.length);
        line("soak.wake_latency.p99", SoakWindows.percentile(wake, 99), "ms", at + " samples=" + wake.length);
        long autovacuums = 0;
        for (Table table : after.tables().values()) {
            Table old = before.tables().getOrDefault(table.name(), new Table(table.name(), 0, 0, 0, 0, 0, 0, 0,
                    0, 0, 0));
            String t = "soak." + table.name();
            line(t + ".table_size", table.tableBytes() / 1048576.0, "MiB", at);
            line(t + ".indexes_size", table.indexBytes() / 1048576.0, "MiB", at);
            line(t + ".total_size", table.totalBytes() / 1048576.0, "MiB", at + " (with TOAST)");
            line(t + ".live_tuples", table.live(), "rows", at);
            line(t + ".dead_tuples", table.dead(), "rows", at);
            long updates = table.updates() - old.updates();
            long hot = table.hotUpdates() - old.hotUpdates();
            line(t + ".hot_updates", updates == 0 ? Double.NaN : 100.0 * hot / updates, "%",
                    at + " updates=" + updates + " hot=" + hot);
            line(t + ".deletes", table.deletes() - old.deletes(), "rows", at);
            line(t + ".autovacuum_runs", table.autovacuums() - old.autovacuums(), "runs", at);
            line(t + ".autoanalyze_runs", table.autoanalyzes() - old.autoanalyzes(), "runs", at);
            autovacuums += table.autovacuums() - old.autovacuums();
        }
        after.indexes().forEach((index, bytes) -> line("soak.index." + index + ".size", bytes / 1048576.0, "MiB",
                at));
        line("soak.total_size", after.totalBytes() / 1048576.0, "MiB", at + " (every table of the schema, with"
                + " indexes and TOAST)");
        long deleted = after.retentionDeleted() - before.retentionDeleted();
        line("soak.retention_deleted", deleted, "instances", at);
        Table instance = after.tables().get("durable_instance");
        Table instanceBefore = before.tables().get("durable_instance");
        Table history = after.tables().get("durable_history");
        long updates = instance.updates() - (instanceBefore == null ? 0 : instanceBefore.updates());
        long hot = instance.hotUpdates() - (instanceBefore == null ? 0 : instanceBefore.hotUpdates());
        return String.format(Locale.ROOT,
                "| %d | %.2f | %.1f | %.1f | %.1f / %.1f | %.1f / %.1f | %.1f + %.1f | %.1f + %.1f | %.1f | %d | %.0f"
                        + " | %d | %d |",
                window, load1, completedRate, stepRate, SoakWindows.percentile(start, 50),
                SoakWindows.percentile(start, 99), SoakWindows.percentile(wake, 50),
                SoakWindows.percentile(wake, 99), instance.tableBytes() / 1048576.0,
                instance.indexBytes() / 1048576.0, history == null ? 0 : history.tableBytes() / 1048576.0,
                history == null ? 0 : history.indexBytes() / 1048576.0, after.totalBytes() / 1048576.0,
                instance.dead(), updates == 0 ? Double.NaN : 100.0 * hot / updates, autovacuums, deleted);
    }

    private static void line(String name, double value, String unit, String details) {
        System.out.println(String.format(Locale.ROOT, "bench: %s value=%.3f unit=%s %s", name, value, unit,
                details));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
