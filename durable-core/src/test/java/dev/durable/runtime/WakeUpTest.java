package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartRequest;
import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.jdbc.WakeUpChannel;
import dev.durable.runtime.node.WakeUpListener;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wake-ups by {@code LISTEN}/{@code NOTIFY} (docs/DESIGN.md, "Wake-ups"): node B polls every 30 s, so what it does
 * within a few seconds of a write made through another node it heard of on its listening connection. A start, a
 * signal that wakes, a cancel of a step B runs, the listening connection killed and opened again; the notifications
 * the writes send (one per queue and transaction, none for a claimed local start); and poll-only mode, which
 * listens to nothing, sends nothing, and still runs work.
 */
class WakeUpTest {

    private static final Duration SLOW_POLL = Duration.ofSeconds(30);
    /** Far below the 30 s poll: only a wake-up explains a step run this soon. */
    private static final Duration SOON = Duration.ofSeconds(5);
    private static final String CHANNEL = WakeUpChannel.of(TestDatabase.SCHEMA);

    record Job(String kind) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    /** When each instance's step was entered, by {@code System.nanoTime()}. */
    private final Map<Long, Long> entered = new ConcurrentHashMap<>();
    /** When each blocked step was interrupted. */
    private final Map<Long, Long> interrupted = new ConcurrentHashMap<>();

    private MachineDefinition jobs() {
        return MachineDefinition.builder("job", 1, Job.class)
                .step("run", (job, ctx) -> {
                    entered.putIfAbsent(ctx.instanceId(), System.nanoTime());
                    if (job.kind().equals("await") && ctx.awaited("go").isEmpty()) {
                        return Outcome.await("go", job);
                    }
                    if (job.kind().equals("block")) {
                        try {
                            Thread.sleep(120_000); // the work: far longer than the test
                        } catch (InterruptedException e) {
                            interrupted.put(ctx.instanceId(), System.nanoTime());
                            throw e;
                        }
                    }
                    return Outcome.done();
                })
                .build();
    }

    /** Node B: polls every 30 s, heartbeats every 20 s (a cancel it hears of at once is not the heartbeat's). */
    private DurableEngine slowPollingNode(MachineDefinition machine, UnaryOperator<EngineSettings.Builder> more) {
        DurableEngine node = engines.start("node-b", settings -> more.apply(settings.pollInterval(SLOW_POLL)
                .idlePollInterval(SLOW_POLL).leaseTtl(Duration.ofSeconds(60)).heartbeatInterval(Duration.ofSeconds(20))),
                machine);
        if (node.settings().wakeUps() == WakeUps.LISTEN) {
            await().atMost(SOON).until(() -> node.wakeUpListener().listening());
        }
        return node;
    }

    /** Node A: a client whose engine does not run, so nothing of its own wakes B. */
    private DurableClient nodeA(MachineDefinition machine, WakeUps wakeUps) {
        return engines.build("node-a", settings -> settings.wakeUps(wakeUps), machine).client();
    }

    /** Starts one job through {@code client}; how long until B entered its step. */
    private Duration startAndTimeEntry(DurableClient client, String kind) {
        long before = System.nanoTime();
        long id = client.start("job", new Job(kind)).id();
        await().atMost(SOON).until(() -> entered.containsKey(id));
        return Duration.ofNanos(entered.get(id) - before);
    }

    @Test
    void aStartOnAnotherNodeWakesTheQueuesOwnerWithoutWaitingForItsPoll() {
        assumeFalse(TestPostgres.get().throughTransactionPooler(), "LISTEN needs a direct connection");
        MachineDefinition machine = jobs();
        DurableEngine nodeB = slowPollingNode(machine, UnaryOperator.identity());
        DurableClient nodeA = nodeA(machine, WakeUps.LISTEN);

        startAndTimeEntry(nodeA, "run"); // after B's first picks at its start
        List<Duration> latencies = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            latencies.add(startAndTimeEntry(nodeA, "run"));
        }

        System.out.printf("WakeUpTest: a start on node A entered on node B (poll 30 s) after %s%n", latencies);
        assertThat(latencies).allSatisfy(latency -> assertThat(latency).isLessThan(SOON));
        assertThat(nodeB.wakeUpListener().heard()).as("notifications B heard").isGreaterThanOrEqualTo(6);
    }

    @Test
    void aSignalThroughAnotherNodeWakesTheInstanceOnItsNodeAtOnce() {
        assumeFalse(TestPostgres.get().throughTransactionPooler(), "LISTEN needs a direct connection");
        MachineDefinition machine = jobs();
        DurableEngine nodeB = slowPollingNode(machine, UnaryOperator.identity());
        DurableClient nodeA = nodeA(machine, WakeUps.LISTEN);
        long id = nodeA.start("job", new Job("await")).id();
        await().atMost(SOON).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        entered.remove(id);

        long before = System.nanoTime();
        assertThat(nodeA.signal(id, "go", null, null).wokeInstance()).isTrue();

        await().atMost(SOON).until(() -> TestDatabase.status(id).equals("done"));
        System.out.printf("WakeUpTest: a signal through node A woke its instance on node B after %d ms%n",
                Duration.ofNanos(entered.get(id) - before).toMillis());
        assertThat(nodeB.wakeUpListener().heard()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aCancelThroughAnotherNodeInterruptsTheStepOnTheNodeHoldingItsClaimAtOnce() {
        assumeFalse(TestPostgres.get().throughTransactionPooler(), "LISTEN needs a direct connection");
        MachineDefinition machine = jobs();
        DurableEngine nodeB = slowPollingNode(machine, UnaryOperator.identity());
        DurableClient nodeA = nodeA(machine, WakeUps.LISTEN);
        startAndTimeEntry(nodeA, "run");
        long id = nodeA.start("job", new Job("block")).id();
        await().atMost(SOON).until(() -> entered.containsKey(id));
        assertThat(nodeB.claims()).isEqualTo(1);

        long before = System.nanoTime();
        assertThat(nodeA.cancel(id, "called off").outcome()).isEqualTo(CancelResult.Cancellation.CANCELLED);

        await().atMost(SOON).until(() -> interrupted.containsKey(id));
        Duration after = Duration.ofNanos(interrupted.get(id) - before);
        System.out.printf("WakeUpTest: a cancel through node A interrupted the step on node B after %d ms "
                + "(heartbeat every 20 s)%n", after.toMillis());
        assertThat(after).isLessThan(SOON);
        await().atMost(SOON).until(() -> nodeB.claims() == 0);
        assertThat(TestDatabase.status(id)).isEqualTo("cancelled");
    }

    @Test
    void aKilledListeningConnectionIsOpenedAgainAndEveryQueueLooksOnce() {
        assumeFalse(TestPostgres.get().throughTransactionPooler(), "LISTEN needs a direct connection");
        MachineDefinition machine = jobs();
        DurableEngine nodeB = slowPollingNode(machine, settings -> settings.maxRetryBackoff(Duration.ofMillis(200)));
        DurableClient nodeA = nodeA(machine, WakeUps.LISTEN);
        startAndTimeEntry(nodeA, "run");
        WakeUpListener listener = nodeB.wakeUpListener();
        assertThat(listener.connects()).isEqualTo(1);

        assertThat(listeningBackends()).as("backends listening on the channel").hasSize(1);
        TestDatabase.jdbc().queryForList("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY (?)",
                Boolean.class, (Object) listeningBackends().toArray(Integer[]::new));

        await().atMost(SOON).until(() -> listener.connects() == 2 && listener.listening());
        assertThat(listeningBackends()).hasSize(1);
        assertThat(logs.at(Level.INFO)).anyMatch(line -> line.contains("again, after a lost connection"));
        assertThat(startAndTimeEntry(nodeA, "run")).as("a start after the reconnection").isLessThan(SOON);
    }

    /**
     * What the writes send, heard on a connection of the test's own: one notification per queue for a batch of
     * starts, one per signal that wakes, one per cancel of an executing instance; none for a start that claimed
     * its own row on a node working the queue.
     */
    @Test
    void writesNotifyOncePerQueueAndTransactionAndOnlyWhereAnotherNodeCouldNeedIt() throws SQLException {
        assumeFalse(TestPostgres.get().throughTransactionPooler(), "LISTEN needs a direct connection");
        MachineDefinition machine = jobs();
        DurableClient nodeA = nodeA(machine, WakeUps.LISTEN);
        try (Connection connection = TestDatabase.dataSource().getConnection()) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("LISTEN " + WakeUpChannel.quoted(CHANNEL));
            }
            try {
                nodeA.startAll("job", Collections.nCopies(10, StartRequest.of(new Job("await"))));
                assertThat(notifications(connection, 1)).containsExactly("q:default");

                DurableEngine local = engines.start("local", UnaryOperator.identity(), machine);
                await().atMost(SOON).until(() -> TestDatabase.DATABASE.jdbc().queryForObject("SELECT count(*) FROM "
                        + TestDatabase.SCHEMA + ".durable_instance WHERE status = 'awaiting_signal'", Long.class) == 10);
                notifications(connection, 0); // what the local node's own work sent, if anything
                long claimed = local.client().start("job", new Job("block")).id();
                await().atMost(SOON).until(() -> entered.containsKey(claimed));
                assertThat(local.stats().picked()).as("picked or claimed at the start").isEqualTo(11);

                long parked = TestDatabase.jdbc().queryForObject("SELECT min(id) FROM " + TestDatabase.SCHEMA
                        + ".durable_instance WHERE status = 'awaiting_signal'", Long.class);
                nodeA.signal(parked, "go", null, null);
                nodeA.cancel(claimed, "called off");
                assertThat(notifications(connection, 2)).as("nothing for the claimed start; the signal, the cancel")
                        .containsExactly("q:default", "c:" + claimed);
            } finally {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("UNLISTEN *");
                }
            }
        }
    }

    @Test
    void pollOnlyListensToNothingSendsNothingAndStillRunsWork() throws SQLException {
        MachineDefinition machine = jobs();
        DurableEngine node = engines.start("poll-only", settings -> settings.wakeUps(WakeUps.POLL), machine);
        DurableClient nodeA = nodeA(machine, WakeUps.POLL);

        assertThat(node.wakeUpListener().connects()).isZero();
        assertThat(node.wakeUpListener().listening()).isFalse();
        assertThat(listeningBackends()).as("backends listening on the channel").isEmpty();
        assertThat(startAndTimeEntry(nodeA, "run")).as("found by the poll (200 ms)").isLessThan(SOON);
        if (!TestPostgres.get().throughTransactionPooler()) {
            try (Connection connection = TestDatabase.dataSource().getConnection()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + WakeUpChannel.quoted(CHANNEL));
                }
                try {
                    nodeA.start("job", new Job("run"));
                    long id = nodeA.start("job", new Job("block")).id();
                    await().atMost(SOON).until(() -> entered.containsKey(id));
                    nodeA.cancel(id, "called off");
                    assertThat(notifications(connection, 0)).as("sent in poll-only mode").isEmpty();
                } finally {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("UNLISTEN *");
                    }
                }
            }
        }
    }

    /**
     * Behind PgBouncer in transaction mode (scripts/test-behind-pgbouncer): a node left at {@code listen} sees the
     * pooler's URL, says so in one WARN, listens to nothing, and its work is found by polling.
     */
    @Test
    void behindAPoolerANodeLeftAtListenPollsOnlyAfterOneWarn() {
        assumeTrue(TestPostgres.get().throughTransactionPooler(), "run by scripts/test-behind-pgbouncer");
        MachineDefinition machine = jobs();
        DurableEngine node = engines.start("behind-pooler", UnaryOperator.identity(), machine);
        assertThat(node.settings().wakeUps()).isEqualTo(WakeUps.LISTEN);
        await().atMost(SOON).until(() -> logs.at(Level.WARN).stream()
                .anyMatch(line -> line.contains("looks like a connection pooler's")));

        assertThat(startAndTimeEntry(nodeA(machine, WakeUps.LISTEN), "run")).as("found by the poll").isLessThan(SOON);
        assertThat(node.wakeUpListener().listening()).isFalse();
        assertThat(node.wakeUpListener().connects()).isZero();
        assertThat(listeningBackends()).isEmpty();
        assertThat(logs.at(Level.WARN).stream().filter(line -> line.contains("looks like a connection pooler's")))
                .as("one WARN per node").hasSize(1);
    }

    /** A pooler's URL is told apart before anything is sent: the node then polls only. */
    @Test
    void aPoolersUrlIsRecognized() {
        assertThat(WakeUpListener.poolerHint("jdbc:postgresql://127.0.0.1:41234/db?prepareThreshold=0")).isNotNull();
        assertThat(WakeUpListener.poolerHint("jdbc:postgresql://db.example.com:6432/app")).isNotNull();
        assertThat(WakeUpListener.poolerHint("jdbc:postgresql://aws-0-eu.pooler.supabase.com:5432/postgres"))
                .isNotNull();
        assertThat(WakeUpListener.poolerHint("jdbc:postgresql://app.proxy-abc.eu-west-1.rds.amazonaws.com/app"))
                .isNotNull();
        assertThat(WakeUpListener.poolerHint("jdbc:postgresql://127.0.0.1:5432/durable?prepareThreshold=5")).isNull();
        assertThat(WakeUpListener.poolerHint("jdbc:postgresql://db.example.com/app")).isNull();
        assertThat(WakeUpChannel.of(TestDatabase.SCHEMA)).isEqualTo("durable_wake_durable_it");
        assertThat(WakeUpChannel.of("s".repeat(63))).hasSizeLessThanOrEqualTo(63);
        assertThat(WakeUpChannel.quoted("a\"b")).isEqualTo("\"a\"\"b\"");
        assertThat(DurableSchema.named(TestDatabase.SCHEMA).name()).isEqualTo(TestDatabase.SCHEMA);
    }

    /** The backends whose last statement was this schema's LISTEN: the nodes' listening connections. */
    private static List<Integer> listeningBackends() {
        return TestDatabase.jdbc().queryForList("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                + " AND query = ?", Integer.class, "LISTEN " + WakeUpChannel.quoted(CHANNEL));
    }

    /**
     * The payloads heard on {@code connection}: waits until {@code expected} have come, then drains what else comes
     * within half a second (a notification that should not have come has had the time to).
     */
    private static List<String> notifications(Connection connection, int expected) throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        List<String> heard = new ArrayList<>();
        long deadline = System.nanoTime() + SOON.toNanos();
        while (heard.size() < expected && System.nanoTime() < deadline) {
            collect(pg.getNotifications(100), heard);
        }
        collect(pg.getNotifications(500), heard);
        return heard;
    }

    private static void collect(PGNotification[] notifications, List<String> heard) {
        if (notifications != null) {
            for (PGNotification notification : notifications) {
                if (notification.getName().equals(CHANNEL)) {
                    heard.add(notification.getParameter());
                }
            }
        }
    }
}
