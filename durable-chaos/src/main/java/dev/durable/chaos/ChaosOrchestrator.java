package dev.durable.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.DurableClient;
import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.bridge.SLF4JBridgeHandler;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The chaos driver. It starts its own PostgreSQL, applies durable's schema, starts the node JVMs, inserts the
 * workload and delivers its signals, and meanwhile, on a schedule shuffled from a seed, kills nodes with SIGKILL
 * (and starts them again), freezes one with SIGSTOP for longer than the lease (then SIGCONT), restarts PostgreSQL
 * (cleanly, or by killing the postmaster) and stops nodes with SIGTERM (and starts them again). In the middle of it,
 * between those faults, a rolling deploy replaces the nodes one by one (stopped with SIGTERM or SIGKILL, in turn) by
 * nodes running version 2 of {@link DeployMachines} only, while instances started on version 1 are in flight. Then it
 * waits for every instance to finish, stops the nodes, checks the invariants ({@link Invariants},
 * {@link FamilyInvariants}, {@link DeployInvariants}) and prints one summary line starting with {@code chaos:}. The
 * exit status is non-zero on any violation.
 *
 * <p>Usage: {@code ChaosOrchestrator [preset=short|long] [key=value ...]}, keys as in {@link ChaosConfig}.
 */
public final class ChaosOrchestrator {

    private static final Pattern COMMITTED =
            Pattern.compile("^EVENT committed instance=(\\d+) token=(\\d+) step=(\\S+)");
    private static final Pattern TOKEN_EVENT =
            Pattern.compile("^EVENT (fenced|abandoned|discarded) instance=(\\d+) token=(\\d+) step=(\\S+) .*");
    private static final Pattern REAPED = Pattern.compile("^EVENT reaped count=(\\d+)");
    private static final Pattern LEASE_LOST = Pattern.compile("^EVENT lease-lost instance=(\\d+)");
    private static final Pattern SUSPENDED = Pattern.compile("^EVENT suspended instance=(\\d+)");
    private static final Pattern STATE = Pattern.compile("^EVENT state from=(\\S+) to=(\\S+) at=(\\d+)");
    private static final Pattern READY = Pattern.compile("^READY node=\\S+ id=(\\S+) pid=(\\d+)");
    private static final Pattern DEPLOY_CHECK =
            Pattern.compile("\\bdeployVersion=(\\d+) deployCheck=(\\S+) held=(\\S+)");
    private static final Pattern RELEASED = Pattern.compile("\\breleased=(\\d+)");
    private static final Duration NODE_START_TIMEOUT = Duration.ofSeconds(90);
    private static final String SCHEMA = "durable";

    /** A finished run. */
    public record Result(String summary, int violations, List<String> checks) {
    }

    /** What the schedule does; {@code DEPLOY} is one node of the rolling deploy, not a fault. */
    private enum Fault { KILL, PAUSE, PG_RESTART, PG_CRASH, SIGTERM, DEPLOY, FAILOVER }

    private record Pause(String node, long pid, Instant from, Instant to, int claimsHeld, List<Long> heldIds) {
    }

    private final ChaosConfig config;
    private final Path runDir;
    private final Random random;
    private final PrintStream console;
    private final long startNanos = System.nanoTime();
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final Map<Invariants.Run, String> unapplied = new ConcurrentHashMap<>();
    private final Map<Long, Set<Long>> leaseLostByPid = new ConcurrentHashMap<>();
    private final Map<Long, Instant> resumedAt = new ConcurrentHashMap<>();
    private final Map<Long, Set<Long>> fencedAfterResume = new ConcurrentHashMap<>();
    private final Map<Long, String> nodeIdByPid = new ConcurrentHashMap<>();
    private final Map<Long, String> lastState = new ConcurrentHashMap<>();
    private final List<Duration> recoveries = new CopyOnWriteArrayList<>();
    private int finishedWithViolations = -1;
    private final Set<Long> longStepAtSigterm = ConcurrentHashMap.newKeySet();
    private final Map<Long, Long> releasedByPid = new ConcurrentHashMap<>();
    private volatile Instant postgresBackAt = Instant.EPOCH;
    private final Set<Long> killedPids = ConcurrentHashMap.newKeySet();
    private final Map<Long, Instant> stoppedAt = new ConcurrentHashMap<>();
    private final Map<Long, List<Instant[]>> pausesByPid = new ConcurrentHashMap<>();
    private final List<Pause> pauses = new CopyOnWriteArrayList<>();
    private final List<String> stats = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    private final Map<Fault, Integer> done = new ConcurrentHashMap<>();
    /** The version of {@link DeployMachines} each node (by name) was last started with. */
    private final Map<String, Integer> deployVersions = new ConcurrentHashMap<>();
    private final AtomicBoolean deployed = new AtomicBoolean();
    /** The deploy checks at the starts of nodes running version 2, one line each. */
    private final List<String> v2Checks = new CopyOnWriteArrayList<>();
    private String jdbcUrl = "";
    /** The primary and its standby of a failover run; null on the orchestrator's own PostgreSQL. */
    private @Nullable ReplicatedPostgres replicated;
    /** Every outcome the nodes were told had committed (failover runs only): claim and step, and the instance. */
    private final Map<Invariants.Run, Long> committedByNodes = new ConcurrentHashMap<>();
    /** The instances each lease token was reported for, committed or not (failover runs: a token may come again). */
    private final Map<Long, Set<Long>> instancesByToken = new ConcurrentHashMap<>();
    private volatile @Nullable Instant primaryKilledAt;
    private volatile @Nullable Instant promotedAt;
    private final Map<String, Long> failoverFigures = new ConcurrentHashMap<>();

    private ChaosOrchestrator(ChaosConfig config, Path runDir, PrintStream console) {
        this.config = config;
        this.runDir = runDir;
        this.random = new Random(config.seed());
        this.console = console;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> overrides = new LinkedHashMap<>(ChaosNode.parseLoose(args));
        String preset = overrides.remove("preset");
        Path workDir = Path.of("target", "chaos");
        ChaosConfig base = "long".equals(preset) ? ChaosConfig.longRun(workDir)
                : "failover".equals(preset) ? ChaosConfig.failoverRun(workDir, overrides.getOrDefault("replication",
                        "sync"))
                : ChaosConfig.shortRun(workDir);
        Result result = run(base.with(overrides), System.out);
        System.exit(result.violations() == 0 ? 0 : 1);
    }

    /** Runs one chaos run to its end and returns its summary; prints progress to {@code console}. */
    public static Result run(ChaosConfig config, PrintStream console) throws Exception {
        if (!SLF4JBridgeHandler.isInstalled()) { // Liquibase logs through java.util.logging
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path runDir = config.workDir().resolve("run-" + stamp + "-" + config.seed());
        Files.createDirectories(runDir);
        return new ChaosOrchestrator(config, runDir, console).run();
    }

    private Result run() throws Exception {
        say("run " + runDir + " seed=" + config.seed() + " " + config);
        ReplicatedPostgres.Mode replication = config.replicationMode();
        ChaosPostgres pg = replication == null ? ChaosPostgres.start(runDir.resolve("pgdata")) : null;
        replicated = replication == null ? null : ReplicatedPostgres.start(replication);
        jdbcUrl = pg != null ? pg.jdbcUrl() : Objects.requireNonNull(replicated).jdbcUrl();
        HikariDataSource data = pool(jdbcUrl);
        Thread inserter = null;
        Thread signaler = null;
        Thread familyDriver = null;
        Thread deployDriver = null;
        try {
            say((pg != null ? "PostgreSQL on port " + pg.port() : "PostgreSQL " + replicated)
                    + "; applying the schema");
            DurableSchema.named(SCHEMA).migrate(data);
            JdbcTemplate jdbc = new JdbcTemplate(data);
            jdbc.execute(EffectLog.DDL);
            jdbc.execute(Workload.DDL);
            jdbc.execute(FamilyWorkload.DDL);
            jdbc.execute(DeployWorkload.DDL);

            DurableClient client = DurableEngine.builder(data, MachineRegistry.of(ChaosMachine.clientDefinition(),
                            FamilyMachines.parent(), FamilyMachines.member(), DeployMachines.v1(), DeployMachines.v2()))
                    .settings(EngineSettings.builder().nodeName("driver").schema(SCHEMA)
                            .queues(Map.of(ChaosMachine.QUEUE, QueueSettings.concurrency(0))).build())
                    .build()
                    .client();
            for (int k = 1; k <= config.nodes(); k++) {
                String name = "node-" + k;
                deployVersions.put(name, 1);
                nodes.add(new NodeProcess(name, nodeCommand(name, k, 1), runDir.resolve(name + ".log"),
                        this::onNodeLine));
            }
            for (NodeProcess node : nodes) {
                node.start(NODE_START_TIMEOUT);
                say("started " + node);
            }

            Workload workload = new Workload(config, client, data, () -> { });
            inserter = daemon("inserter", workload::insertAll);
            signaler = daemon("signaler", workload::signalAll);
            FamilyWorkload families = new FamilyWorkload(config, client, data);
            familyDriver = daemon("families", families::run);
            if (config.deploys() == 0) {
                deployed.set(true);
            }
            DeployWorkload deploys = new DeployWorkload(config, client, data, deployed::get);
            deployDriver = daemon("deploy", deploys::run);
            Thread progress = daemon("progress", () -> reportProgress(jdbc, workload));

            runFaults(pg, jdbc);
            for (NodeProcess node : nodes) { // every node takes part in the end game
                if (node.isPaused()) {
                    node.resume();
                }
                if (!node.isAlive()) {
                    node.start(NODE_START_TIMEOUT);
                    say("restarted " + node + " for the end");
                }
            }
            say("chaos over; waiting for every instance to finish (at most " + config.quiescence() + ")");
            inserter.join(config.quiescence().toMillis());
            familyDriver.join(config.quiescence().toMillis());
            deployDriver.join(config.quiescence().toMillis());
            boolean quiet = replicated != null && replicated.mode() == ReplicatedPostgres.Mode.ASYNC
                    ? awaitNothingRunnable(jdbc, signaler, inserter, familyDriver)
                    : awaitQuiescence(jdbc, workload);
            signaler.join(Duration.ofSeconds(30).toMillis());
            progress.interrupt();
            if (!quiet) {
                say("NOT QUIESCENT after " + config.quiescence() + ": the checks will show what is left");
            }
            if (workload.failure() != null) {
                say("the workload failed: " + workload.failure());
            }
            Invariants.Check recovered = nodesRecovered(Duration.ofSeconds(60));
            stopNodes();

            Invariants.Report report = new Invariants(data).check(new Invariants.Witness(Map.copyOf(unapplied),
                    Set.copyOf(killedPids), Map.copyOf(pausesByPid), Map.copyOf(stoppedAt)));
            List<Invariants.Check> checks = new ArrayList<>(report.checks());
            checks.addAll(new FamilyInvariants(data).check(report.counts()));
            checks.add(new DeployInvariants(data).check(report.counts()));
            checks.add(recovered);
            Invariants.Report failover = null;
            if (replicated != null) {
                failover = new FailoverInvariants(data).check(new FailoverInvariants.Acknowledged(
                        workload.acknowledgedStarts(), workload.acknowledgedSignals(), families.cancelAnswers(),
                        Map.copyOf(committedByNodes), Map.copyOf(instancesByToken)),
                        Objects.requireNonNull(primaryKilledAt), promotedAt);
                checks.addAll(failover.checks());
            }
            checks.add(pausedNodeFenced());
            checks.add(sigtermReleased());
            checks.add(faultsInjected());
            checks.add(new Invariants.Check("workload-complete", workload.failure() == null
                    && workload.inserted() == config.instances(), workload.inserted() + " of " + config.instances()
                    + " instances inserted, " + workload.signalsSent() + " signals sent, "
                    + workload.callFailures() + " driver calls repeated after a database error",
                    workload.failure() == null ? List.of() : List.of(String.valueOf(workload.failure()))));
            checks.add(new Invariants.Check("families-complete", families.failure() == null
                    && families.started() == config.families(), families.started() + " of " + config.families()
                    + " families started, " + families.cancelsSent() + " cancels sent, " + families.callFailures()
                    + " driver calls repeated after a database error",
                    families.failure() == null ? List.of() : List.of(String.valueOf(families.failure()))));
            checks.add(deployCheckAgrees());
            checks.add(new Invariants.Check("deploy-complete", deploys.failure() == null
                    && deploys.started() == config.deployInstances() && deployed.get(), deploys.started() + " of "
                    + config.deployInstances() + " " + DeployMachines.NAME + " instances started ("
                    + deploys.startedOnV1() + " on v1), " + done.getOrDefault(Fault.DEPLOY, 0) + " of "
                    + config.deploys() + " nodes replaced by nodes running v2 only, now running "
                    + new TreeMap<>(deployVersions) + "; " + deploys.callFailures()
                    + " driver calls repeated after a database error",
                    deploys.failure() == null ? List.of() : List.of(String.valueOf(deploys.failure()))));
            List<String> described = checks.stream().map(Invariants.Check::describe).toList();
            described.forEach(this::say);
            stats.forEach(line -> say("node " + line));
            int violations = (int) checks.stream().filter(check -> !check.passed() && counts(check)).count();
            String summary = summary(report, violations);
            if (failover != null) {
                summary = failoverSummary(report, failover, checks, violations);
            }
            console.println(summary);
            Files.writeString(runDir.resolve("summary.txt"), String.join("\n", described) + "\n" + summary + "\n",
                    StandardCharsets.UTF_8);
            finishedWithViolations = violations;
            return new Result(summary, violations, described);
        } finally {
            if (inserter != null) {
                inserter.interrupt();
            }
            if (signaler != null) {
                signaler.interrupt();
            }
            if (familyDriver != null) {
                familyDriver.interrupt();
            }
            if (deployDriver != null) {
                deployDriver.interrupt();
            }
            for (NodeProcess node : nodes) {
                if (node.isAlive()) {
                    node.kill();
                }
            }
            data.close();
            if (pg != null) {
                pg.close();
            }
            if (replicated != null) {
                replicated.copyLogsTo(runDir);
                replicated.close();
            }
            if (finishedWithViolations >= 0) {
                dropDatabaseIfPassed(finishedWithViolations);
            }
        }
    }

    /** A passing run's database is not worth its 100+ MB; a failing run keeps it for forensics. */
    private void dropDatabaseIfPassed(int violations) {
        if (violations == 0) {
            try {
                ChaosPostgres.deleteRecursively(runDir.resolve("pgdata"));
            } catch (IOException | RuntimeException e) {
                say("could not delete the data directory: " + e);
            }
        }
    }

    // ---------------------------------------------------------------- faults

    private void runFaults(@Nullable ChaosPostgres pg, JdbcTemplate jdbc) throws Exception {
        List<Fault> schedule = new ArrayList<>();
        add(schedule, Fault.KILL, config.kills());
        add(schedule, Fault.PAUSE, config.pauses());
        add(schedule, Fault.PG_RESTART, config.pgRestarts());
        add(schedule, Fault.PG_CRASH, config.pgCrashes());
        add(schedule, Fault.SIGTERM, config.sigterms());
        add(schedule, Fault.FAILOVER, config.failovers());
        Collections.shuffle(schedule, random);
        // The rolling deploy replaces one node at a time between the faults, from a quarter of the insert window to
        // three quarters of it: instances started on version 1 before and during it are in flight, and faults strike
        // before, during and after it.
        int deploys = config.deploys();
        int total = schedule.size() + deploys;
        for (int k = 0; k < deploys; k++) {
            schedule.add((int) Math.round(total * (0.25 + 0.5 * k / Math.max(1, deploys - 1))), Fault.DEPLOY);
        }
        // Faults fall while instances are being inserted, so that they always land on work in progress; the rest of
        // the chaos window lets the backlog drain.
        long chaosStart = System.nanoTime();
        long slot = config.insertWindow().toNanos() / (schedule.size() + 1);
        for (int k = 0; k < schedule.size(); k++) {
            sleepUntil(chaosStart + slot * (k + 1));
            Fault fault = schedule.get(k);
            inject(fault, pg, jdbc);
            done.merge(fault, 1, Integer::sum);
        }
        sleepUntil(chaosStart + config.chaosWindow().toNanos());
    }

    private void inject(Fault fault, @Nullable ChaosPostgres pg, JdbcTemplate jdbc) throws Exception {
        switch (fault) {
            case KILL -> {
                NodeProcess node = anyRunningNode();
                long pid = node.pid();
                killedPids.add(pid);
                node.kill();
                stoppedAt.put(pid, Instant.now());
                Duration down = Duration.ofMillis(300 + random.nextInt(1700));
                say("SIGKILL " + node.name() + " (pid " + pid + "); restarting in " + down.toMillis() + " ms");
                Thread.sleep(down.toMillis());
                node.start(NODE_START_TIMEOUT);
                say("  " + node.name() + " back as pid " + node.pid());
            }
            case PAUSE -> {
                NodeProcess node = busiestNode(jdbc);
                long pid = node.pid();
                Instant from = Instant.now();
                node.pause();
                List<Long> held = claimsOf(jdbc, nodeIdByPid.get(pid));
                Duration hold = config.lease().plus(config.pauseExtra()).plusMillis(random.nextInt(2000));
                say("SIGSTOP " + node.name() + " (pid " + pid + ") holding " + held.size() + " claims, for "
                        + hold.toMillis() + " ms (lease " + config.lease().toMillis() + " ms)");
                Thread.sleep(hold.toMillis());
                resumedAt.put(pid, Instant.now());
                node.resume();
                Instant to = Instant.now();
                pausesByPid.computeIfAbsent(pid, p -> new CopyOnWriteArrayList<>()).add(new Instant[] {from, to});
                pauses.add(new Pause(node.name(), pid, from, to, held.size(), held));
                say("SIGCONT " + node.name() + " (pid " + pid + ")");
                // Let the resumed node find out that its leases are gone before the next fault may strike it.
                Thread.sleep(config.heartbeat().multipliedBy(2).toMillis());
            }
            case PG_RESTART -> {
                Duration downtime = pgDowntime();
                say("restarting PostgreSQL (fast shutdown), down for " + downtime.toMillis() + " ms");
                Duration down = Objects.requireNonNull(pg).restart(downtime);
                postgresBackAt = Instant.now();
                say("  PostgreSQL back after " + down.toMillis() + " ms");
            }
            case PG_CRASH -> {
                Duration downtime = pgDowntime();
                say("crashing PostgreSQL (SIGQUIT to the postmaster: immediate shutdown, crash recovery), down for "
                        + downtime.toMillis() + " ms");
                Duration down = Objects.requireNonNull(pg).crash(downtime);
                postgresBackAt = Instant.now();
                say("  PostgreSQL back after " + down.toMillis() + " ms");
            }
            case DEPLOY -> deployNext();
            case FAILOVER -> failover(Objects.requireNonNull(replicated));
            case SIGTERM -> {
                NodeProcess node = nodeWithALongStep(jdbc);
                long pid = node.pid();
                Duration patience = config.grace().plusSeconds(30);
                boolean graceful = node.terminate(patience);
                stoppedAt.put(pid, Instant.now());
                if (!graceful) {
                    killedPids.add(pid);
                }
                say("SIGTERM " + node.name() + " (pid " + pid + "): " + (graceful ? "drained and exited"
                        : "did not exit within " + patience + ", killed"));
                Thread.sleep(300 + random.nextInt(1000));
                node.start(NODE_START_TIMEOUT);
                say("  " + node.name() + " back as pid " + node.pid());
            }
        }
    }

    /**
     * One step of the rolling deploy: the next node still running version 1 is stopped, with SIGTERM (drain, release)
     * or SIGKILL in turn, as deploys do, and started again running version 2 only.
     */
    private void deployNext() throws IOException, InterruptedException {
        NodeProcess node = nodes.stream().filter(n -> deployVersions.get(n.name()) == 1).findFirst()
                .orElseThrow(() -> new IllegalStateException("every node runs version 2 already"));
        if (node.isPaused()) {
            node.resume();
        }
        long pid = node.pid();
        boolean graceful = false;
        if (done.getOrDefault(Fault.DEPLOY, 0) % 2 == 0) {
            graceful = node.terminate(config.grace().plusSeconds(30));
        } else {
            node.kill();
        }
        stoppedAt.put(pid, Instant.now());
        if (!graceful) {
            killedPids.add(pid);
        }
        node.redeploy(nodeCommand(node.name(), nodes.indexOf(node) + 1, 2));
        deployVersions.put(node.name(), 2);
        node.start(NODE_START_TIMEOUT);
        long left = deployVersions.values().stream().filter(version -> version == 1).count();
        say("deploy: " + node.name() + " (pid " + pid + ") " + (graceful ? "drained by SIGTERM" : "killed")
                + ", back as pid " + node.pid() + " running " + DeployMachines.NAME + " v2 only; " + left
                + " node(s) left on v1");
        if (left == 0) {
            deployed.set(true);
        }
    }

    /**
     * The failover: with asynchronous replication and a lag to make, the primary's WAL sender is frozen (SIGSTOP) for
     * {@code replicationLag} first, so that the workload's commits meanwhile reach the primary only; then SIGKILL to the
     * primary's postmaster (and to the frozen WAL sender, which would otherwise send what it holds when it wakes), and
     * {@code promoteAfter} later (the HA manager's detection) {@code pg_ctl promote} on the standby. Figures: how far
     * behind the standby was, when it was promoted.
     */
    private void failover(ReplicatedPostgres pair) throws Exception {
        if (pair.mode() == ReplicatedPostgres.Mode.ASYNC && config.replicationLag().toMillis() > 0) {
            long sender = pair.freezeWalSender();
            say("froze the primary's WAL sender (pid " + sender + ") for " + config.replicationLag().toMillis()
                    + " ms: commits reach the primary only");
            Thread.sleep(config.replicationLag().toMillis()); // pacing: the lag the standby will have
        }
        String written = pair.primaryWalPosition();
        Instant killed = pair.killPrimary();
        primaryKilledAt = killed;
        say("SIGKILL to the primary's postmaster (port " + pair.primaryPort() + "): every process of it gone "
                + Duration.between(killed, Instant.now()).toMillis() + " ms later; it had written WAL up to at least "
                + written);
        // pacing: the HA manager's detection time, from the kill
        sleepUntil(System.nanoTime() + Duration.between(Instant.now(), killed.plus(config.promoteAfter())).toNanos());
        String received = pair.standbyReceivedPosition();
        long behind = Math.max(0, pair.walBytes(received, written));
        pair.promoteStandby();
        Instant promoted = Instant.now();
        promotedAt = promoted;
        postgresBackAt = promoted;
        failoverFigures.put("wal_behind_bytes", behind);
        say("promoted the standby (port " + pair.standbyPort() + ") " + Duration.between(killed, promoted).toMillis()
                + " ms after the kill; it had received WAL up to " + received + ", at least " + behind
                + " bytes behind the primary");
    }

    /**
     * With asynchronous replication the end is not "every planned instance finished": instances and signals may have
     * been lost. It is: the driver's threads are done and no instance is runnable or executing (what waits for a lost
     * signal stays parked), twice in a row a second apart.
     */
    private boolean awaitNothingRunnable(JdbcTemplate jdbc, Thread... drivers) throws InterruptedException {
        long deadline = System.nanoTime() + config.quiescence().toNanos();
        for (Thread driver : drivers) {
            driver.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        int quietPolls = 0;
        while (System.nanoTime() < deadline) {
            try {
                Long open = jdbc.queryForObject("SELECT count(*) FROM durable.durable_instance WHERE machine <> '"
                        + ChaosMachine.TICKER + "' AND status IN ('runnable', 'executing')", Long.class);
                quietPolls = open != null && open == 0 ? quietPolls + 1 : 0;
                if (quietPolls == 2) {
                    return true;
                }
            } catch (DataAccessException e) {
                quietPolls = 0;
            }
            Thread.sleep(1000); // polling the condition
        }
        return false;
    }

    /**
     * With asynchronous replication only what shows a wedged or corrupted engine is a violation; the checks that
     * count losses are measurements.
     */
    private boolean counts(Invariants.Check check) {
        if (replicated == null || replicated.mode() == ReplicatedPostgres.Mode.SYNC) {
            return true;
        }
        return Set.of("nothing-wedged", "nodes-recovered", "workload-complete", "families-complete",
                "faults-injected").contains(check.name());
    }

    private String failoverSummary(Invariants.Report report, Invariants.Report failover, List<Invariants.Check> checks,
            int violations) {
        Map<String, Long> c = failover.counts();
        long seconds = Duration.ofNanos(System.nanoTime() - startNanos).toSeconds();
        List<String> measured = checks.stream().filter(check -> !check.passed() && !counts(check))
                .map(Invariants.Check::name).toList();
        return "failover: replication=" + config.replication() + " nodes=" + config.nodes()
                + " instances=" + config.instances() + " families=" + config.families()
                + " promoted_after_ms=" + c.get("promoted_after_ms")
                + " degraded_ms=" + c.get("degraded_ms")
                + " recovered_ms=" + recoveries.stream().max(Duration::compareTo).orElse(Duration.ZERO).toMillis()
                + " wal_behind_bytes=" + failoverFigures.getOrDefault("wal_behind_bytes", 0L)
                + " lost_starts=" + c.get("lost_starts") + " lost_signals=" + c.get("lost_signals")
                + " lost_cancels=" + c.get("lost_cancels") + " lost_transitions=" + c.get("lost_transitions")
                + " tokens_reused=" + c.get("tokens_reused") + " ids_reused=" + c.get("ids_reused")
                + " duplicates_seen=" + c.get("duplicates_seen")
                + " committed=" + committedByNodes.size()
                + " fenced=" + count("fenced") + " abandoned=" + count("abandoned") + " discarded=" + count("discarded")
                + " reaped=" + count("reaped") + " leases_lost=" + count("lease-lost")
                + " degraded=" + count("degraded") + " recovered=" + count("recovered")
                + " executions=" + report.counts().get("executions")
                + " duplicate_executions=" + report.counts().get("duplicate_executions")
                + " measured_failures=" + measured
                + " violations=" + violations
                + " duration=" + seconds + "s seed=" + config.seed();
    }

    private Duration pgDowntime() {
        long most = config.pgDowntime().toMillis();
        return Duration.ofMillis(most / 2 + random.nextLong(Math.max(1, most - most / 2)));
    }

    private static void add(List<Fault> schedule, Fault fault, int times) {
        for (int k = 0; k < times; k++) {
            schedule.add(fault);
        }
    }

    private NodeProcess anyRunningNode() {
        List<NodeProcess> running = nodes.stream().filter(n -> n.isAlive() && !n.isPaused()).toList();
        return running.get(random.nextInt(running.size()));
    }

    /**
     * A running node in the middle of a long step that will outlast the shutdown grace period (it started less than
     * a second ago), so that a SIGTERM has an unfinished claim to release; waits a few seconds for one, then takes
     * any running node.
     */
    private NodeProcess nodeWithALongStep(JdbcTemplate jdbc) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                List<String> owners = jdbc.queryForList("""
                        SELECT i.lease_owner
                        FROM durable.durable_instance i JOIN chaos.effect e ON e.token = i.lease_token
                        WHERE i.status = 'executing' AND e.ended_at IS NULL
                          AND e.started_at BETWEEN clock_timestamp() - interval '1000 milliseconds'
                                               AND clock_timestamp() - interval '150 milliseconds'
                        """, String.class);
                for (NodeProcess node : nodes) {
                    if (node.isAlive() && !node.isPaused() && owners.contains(nodeIdByPid.get(node.pid()))) {
                        longStepAtSigterm.add(node.pid());
                        return node;
                    }
                }
            } catch (DataAccessException e) {
                // any node will do
            }
            Thread.sleep(100);
        }
        return anyRunningNode();
    }

    /** The running node holding the most claims now, so that a pause lands in the middle of steps. */
    private NodeProcess busiestNode(JdbcTemplate jdbc) {
        NodeProcess busiest = anyRunningNode();
        int most = -1;
        for (NodeProcess node : nodes) {
            if (node.isAlive() && !node.isPaused()) {
                int held = claimsOf(jdbc, nodeIdByPid.get(node.pid())).size();
                if (held > most) {
                    most = held;
                    busiest = node;
                }
            }
        }
        return busiest;
    }

    private static List<Long> claimsOf(JdbcTemplate jdbc, @Nullable String nodeId) {
        if (nodeId == null) {
            return List.of();
        }
        try {
            return jdbc.queryForList("SELECT id FROM durable.durable_instance WHERE status = 'executing' "
                    + "AND lease_owner = ?", Long.class, nodeId);
        } catch (DataAccessException e) {
            return List.of();
        }
    }

    // ---------------------------------------------------------------- the end game

    private boolean awaitQuiescence(JdbcTemplate jdbc, Workload workload) throws InterruptedException {
        long deadline = System.nanoTime() + config.quiescence().toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Long open = jdbc.queryForObject("""
                        SELECT (SELECT count(*) FROM chaos.plan p JOIN durable.durable_instance i
                                ON i.id = p.instance_id WHERE i.status NOT IN ('done', 'failed'))
                             + (SELECT count(*) FROM durable.durable_instance
                                WHERE machine IN ('chaos-family', 'chaos-member')
                                  AND status IN ('runnable', 'executing', 'awaiting_signal'))
                             + (SELECT count(*) FROM durable.durable_instance
                                WHERE machine = 'chaos-deploy' AND suspension IS NULL
                                  AND status IN ('runnable', 'executing', 'awaiting_signal'))
                        """, Long.class);
                Long planned = jdbc.queryForObject("SELECT count(*) FROM chaos.plan", Long.class);
                // A suspended instance waits for an operator, not for time: the checks report it.
                if (open != null && open == 0 && planned != null && planned == config.instances()) {
                    return true;
                }
            } catch (DataAccessException e) {
                // the database may still be recovering
            }
            if (workload.failure() != null) {
                return false;
            }
            Thread.sleep(500);
        }
        return false;
    }

    private void stopNodes() throws IOException, InterruptedException {
        for (NodeProcess node : nodes) {
            if (node.isAlive()) {
                long pid = node.pid();
                boolean graceful = node.terminate(config.grace().plusSeconds(30));
                stoppedAt.put(pid, Instant.now());
                if (!graceful) {
                    killedPids.add(pid);
                }
                say("stopped " + node.name() + " (pid " + pid + ")" + (graceful ? "" : " by SIGKILL"));
            }
        }
    }

    /**
     * Every node that went DEGRADED while the database was away came back to RUNNING by itself: at the end, each
     * running node's last reported state is RUNNING (none was restarted for it; restarts are the kills and SIGTERMs).
     */
    private Invariants.Check nodesRecovered(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        List<String> evidence = new ArrayList<>();
        do {
            evidence.clear();
            for (NodeProcess node : nodes) {
                String state = lastState.get(node.pid());
                if (node.isAlive() && !"RUNNING".equals(state)) {
                    evidence.add(node + " is " + state);
                }
            }
            if (evidence.isEmpty()) {
                break;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        Duration slowest = recoveries.stream().max(Duration::compareTo).orElse(Duration.ZERO);
        return new Invariants.Check("nodes-recovered", evidence.isEmpty(), count("degraded") + " times a node went "
                + "DEGRADED, " + count("recovered") + " times it came back to RUNNING by itself, at most "
                + slowest.toMillis() + " ms after PostgreSQL was back; every node ends RUNNING", evidence);
    }

    /** A node frozen past its lease finds, when it resumes, that its claims are gone: their outcomes are fenced. */
    private Invariants.Check pausedNodeFenced() {
        List<String> evidence = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Pause pause : pauses) {
            Set<Long> fenced = fencedAfterResume.getOrDefault(pause.pid(), Set.of());
            Set<Long> lost = leaseLostByPid.getOrDefault(pause.pid(), Set.of());
            long hit = pause.heldIds().stream().filter(id -> fenced.contains(id) || lost.contains(id)).count();
            seen.add(pause.node() + " held " + pause.claimsHeld() + " claims; after SIGCONT " + lost.size()
                    + " leases found lost, " + fenced.size() + " outcomes fenced");
            if (pause.claimsHeld() > 0 && hit == 0 && killedPids.contains(pause.pid())) {
                seen.add(pause.node() + " was killed before it reported (inconclusive)");
            } else if (pause.claimsHeld() > 0 && hit == 0) {
                evidence.add(pause.node() + " (pid " + pause.pid() + ") was frozen holding " + pause.heldIds()
                        + " past its lease, yet reported none of them lost or fenced");
            }
        }
        return new Invariants.Check("paused-node-fenced", evidence.isEmpty(), String.join("; ", seen), evidence);
    }

    /**
     * A node stopped with SIGTERM in the middle of a step longer than the grace period released that claim at once
     * (its STATS say so) instead of leaving it to expire.
     */
    private Invariants.Check sigtermReleased() {
        List<String> evidence = new ArrayList<>();
        for (long pid : longStepAtSigterm) {
            if (!killedPids.contains(pid) && releasedByPid.getOrDefault(pid, 0L) < 1) {
                evidence.add("pid " + pid + " was stopped during a long step but released nothing: "
                        + releasedByPid.get(pid));
            }
        }
        return new Invariants.Check("sigterm-released", evidence.isEmpty(), longStepAtSigterm.size() + " of "
                + done.getOrDefault(Fault.SIGTERM, 0) + " SIGTERMs landed in a step longer than the grace period; "
                + "released by draining nodes: " + count("released"), evidence);
    }

    /**
     * Nodes of version 2 start with {@code deploy-check=fail}, as new code deployed strictly would: a node whose check
     * found instances it cannot run would pick nothing. Every one that got an answer found none: its check judges the
     * version 1 rows runnable after the upcast, as its runtime does (docs/DESIGN.md, "The deploy check").
     */
    private Invariants.Check deployCheckAgrees() {
        List<String> evidence = v2Checks.stream().filter(line -> line.contains("problems")).toList();
        long passed = v2Checks.stream().filter(line -> line.contains("check passed")).count();
        return new Invariants.Check("deploy-check-passed", evidence.isEmpty(), v2Checks.size() + " starts of nodes "
                + "running v2 with deploy-check=fail, " + passed + " checks at start passed (the others got no answer "
                + "from the database), none found instances its code cannot run", evidence);
    }

    private Invariants.Check faultsInjected() {
        Map<Fault, Integer> planned = new TreeMap<>(Map.of(Fault.KILL, config.kills(), Fault.PAUSE, config.pauses(),
                Fault.PG_RESTART, config.pgRestarts(), Fault.PG_CRASH, config.pgCrashes(), Fault.SIGTERM,
                config.sigterms(), Fault.DEPLOY, config.deploys(), Fault.FAILOVER, config.failovers()));
        Map<Fault, Integer> injected = new TreeMap<>(done);
        planned.forEach((fault, times) -> injected.putIfAbsent(fault, 0));
        planned.values().removeIf(times -> times == 0);
        injected.values().removeIf(times -> times == 0);
        return new Invariants.Check("faults-injected", planned.equals(injected), "planned " + planned
                + ", injected " + injected, List.of());
    }

    private String summary(Invariants.Report report, int violations) {
        Map<String, Long> c = report.counts();
        long seconds = Duration.ofNanos(System.nanoTime() - startNanos).toSeconds();
        return "chaos: nodes=" + config.nodes() + " inline_nodes=" + Math.min(config.inlineNodes(), config.nodes())
                + " instances=" + config.instances()
                + " kills=" + done.getOrDefault(Fault.KILL, 0)
                + " pauses=" + done.getOrDefault(Fault.PAUSE, 0)
                + " pg_restarts=" + (done.getOrDefault(Fault.PG_RESTART, 0) + done.getOrDefault(Fault.PG_CRASH, 0))
                + " pg_crashes=" + done.getOrDefault(Fault.PG_CRASH, 0)
                + " sigterms=" + done.getOrDefault(Fault.SIGTERM, 0)
                + " reaped=" + count("reaped")
                + " fenced=" + count("fenced")
                + " abandoned=" + count("abandoned")
                + " discarded=" + count("discarded")
                + " released=" + count("released")
                + " leases_lost=" + count("lease-lost")
                + " degraded=" + count("degraded") + " recovered=" + count("recovered")
                + " executions=" + c.get("executions")
                + " duplicate_executions=" + c.get("duplicate_executions")
                + " overlaps_all=" + c.get("overlaps_all")
                + " dup_signals=" + c.get("dup_signals_deduplicated") + "/" + c.get("dup_signals_after_consumption")
                + "/" + c.get("dup_signals_refused_terminal")
                + " deadlines_fired=" + c.get("deadlines_fired") + "/" + c.get("deadlines")
                + " schedule_ticks=" + c.get("schedule_ticks")
                + " families=" + c.get("families") + " joins=" + c.get("joins")
                + " cancels=" + c.get("cancels") + " cancelled=" + c.get("cancelled")
                + " deploys=" + done.getOrDefault(Fault.DEPLOY, 0)
                + " deploy_instances=" + c.get("deploy_instances") + " upcast=" + c.get("upcast")
                + " v2_steps=" + c.get("v2_steps") + " suspended=" + count("suspended")
                + " violations=" + violations
                + " duration=" + seconds + "s seed=" + config.seed();
    }

    // ---------------------------------------------------------------- node output

    private void onNodeLine(NodeProcess node, long pid, String line) {
        Matcher m = COMMITTED.matcher(line);
        if (m.find()) {
            committedByNodes.put(new Invariants.Run(Long.parseLong(m.group(2)), m.group(3)),
                    Long.parseLong(m.group(1)));
            instancesByToken.computeIfAbsent(Long.parseLong(m.group(2)), t -> ConcurrentHashMap.newKeySet())
                    .add(Long.parseLong(m.group(1)));
            return;
        }
        m = TOKEN_EVENT.matcher(line);
        if (m.matches()) {
            if (replicated != null) {
                instancesByToken.computeIfAbsent(Long.parseLong(m.group(3)), t -> ConcurrentHashMap.newKeySet())
                        .add(Long.parseLong(m.group(2)));
            }
            String kind = m.group(1);
            unapplied.put(new Invariants.Run(Long.parseLong(m.group(3)), m.group(4)), kind);
            count(kind, 1);
            Instant resumed = resumedAt.get(pid);
            if (resumed != null && kind.equals("fenced")) {
                fencedAfterResume.computeIfAbsent(pid, p -> ConcurrentHashMap.newKeySet())
                        .add(Long.parseLong(m.group(2)));
            }
            return;
        }
        if ((m = REAPED.matcher(line)).find()) {
            count("reaped", Long.parseLong(m.group(1)));
        } else if (SUSPENDED.matcher(line).find()) {
            count("suspended", 1);
        } else if ((m = LEASE_LOST.matcher(line)).find()) {
            count("lease-lost", 1);
            leaseLostByPid.computeIfAbsent(pid, p -> ConcurrentHashMap.newKeySet()).add(Long.parseLong(m.group(1)));
        } else if ((m = STATE.matcher(line)).find()) {
            String to = m.group(2);
            if (to.equals("DEGRADED")) {
                count("degraded", 1);
            } else if (m.group(1).equals("DEGRADED") && to.equals("RUNNING")) {
                count("recovered", 1);
                Instant back = postgresBackAt;
                if (back.isAfter(Instant.EPOCH)) {
                    // The node's own time of the change: under load this line may be read seconds later.
                    recoveries.add(Duration.between(back, Instant.ofEpochMilli(Long.parseLong(m.group(3)))));
                }
            }
            lastState.put(pid, to);
        } else if ((m = READY.matcher(line)).find()) {
            nodeIdByPid.put(Long.parseLong(m.group(2)), m.group(1));
            Matcher check = DEPLOY_CHECK.matcher(line);
            if (check.find() && check.group(1).equals("2")) {
                v2Checks.add(node.name() + " pid " + m.group(2) + ": deploy check " + check.group(2) + ", held "
                        + check.group(3));
            }
        } else if (line.startsWith("STATS ")) {
            stats.add(node.name() + " pid " + pid + ": " + line);
            Matcher released = RELEASED.matcher(line);
            if (released.find()) {
                count("released", Long.parseLong(released.group(1)));
                releasedByPid.put(pid, Long.parseLong(released.group(1)));
            }
        }
    }

    private void count(String counter, long delta) {
        counters.computeIfAbsent(counter, k -> new AtomicLong()).addAndGet(delta);
    }

    private long count(String counter) {
        AtomicLong value = counters.get(counter);
        return value == null ? 0 : value.get();
    }

    // ---------------------------------------------------------------- plumbing

    /** The command of node {@code index} (from 1) running version {@code deployVersion} of {@link DeployMachines}. */
    private List<String> nodeCommand(String name, int index, int deployVersion) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
                "-cp", classpath, ChaosNode.class.getName(),
                "url=" + jdbcUrl, "user=postgres", "node=" + name, "schema=" + SCHEMA,
                "concurrency=" + config.concurrency(),
                "leaseMs=" + config.lease().toMillis(), "heartbeatMs=" + config.heartbeat().toMillis(),
                "pollMs=" + config.poll().toMillis(), "reaperMs=" + config.reaper().toMillis(),
                "graceMs=" + config.grace().toMillis(), "outcomeRetryMs=" + config.outcomeRetry().toMillis(),
                "minPauseMs=" + config.minPauseMillis(), "maxPauseMs=" + config.maxPauseMillis(),
                "longStepPermille=" + config.longStepPermille(), "longStepMs=" + config.longStepMillis(),
                "inline=" + (index <= config.inlineNodes()), "deployVersion=" + deployVersion,
                // New code deployed strictly: a node of version 2 picks nothing while its code cannot run an
                // unfinished instance. Old nodes restarted during the deploy only warn of version 2's rows.
                "deployCheck=" + (deployVersion == 2 ? "fail" : "warn"),
                "reportCommits=" + (replicated != null));
    }

    private void reportProgress(JdbcTemplate jdbc, Workload workload) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(10_000);
                String counts;
                try {
                    counts = jdbc.queryForList("SELECT status::text AS s, count(*) AS n FROM durable.durable_instance"
                            + " GROUP BY 1 ORDER BY 1").stream().map(r -> r.get("s") + "=" + r.get("n")).toList()
                            .toString();
                } catch (DataAccessException e) {
                    counts = "(database unavailable)";
                }
                say("progress: inserted " + workload.inserted() + "/" + config.instances() + ", signals "
                        + workload.signalsSent() + ", instances " + counts + ", reaped " + count("reaped")
                        + ", fenced " + count("fenced"));
            }
        } catch (InterruptedException e) {
            // the run is over
        }
    }

    private void say(String message) {
        String line = String.format("[chaos %6.1fs] %s", (System.nanoTime() - startNanos) / 1e9, message);
        console.println(line);
        try {
            Files.writeString(runDir.resolve("orchestrator.log"), line + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // the console has it
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, "chaos-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    private static HikariDataSource pool(String jdbcUrl) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("chaos-driver");
        config.setJdbcUrl(jdbcUrl);
        config.setUsername("postgres");
        config.setMaximumPoolSize(6);
        config.setConnectionTimeout(2000);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }
}
