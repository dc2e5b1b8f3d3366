package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.CancelResult;
import dev.durable.Outcome;
import dev.durable.StartRequest;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.queue.QueueOwner;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.LinkedHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A cancel reaches rows that wait claimed on another node (docs/DESIGN.md, "Cancel"): three nodes share a queue of
 * slow steps, each holding more claimed rows than slots (the prefetch they learnt from fast steps), and half of the
 * instances are cancelled through random nodes while their rows wait. From the step-entry and cancel-commit times the
 * database recorded: polling only, no step is entered later than {@link QueueOwner#CHECK_AFTER} after its cancel
 * committed (a claim that waited longer is checked against its row before its step starts); with wake-ups by
 * {@code LISTEN} within {@link #LISTEN_BOUND_MILLIS}: the node holding the claim drops it when the cancel's
 * notification arrives (docs/DESIGN.md, "Wake-ups"), so only a step whose check read its row just before the cancel
 * committed, or that started in the millisecond the notification takes, is entered after it; the recorded entry
 * is the step's first statement, a round trip after the entry itself.
 */
class CancelAcrossNodesTest {

    private static final String SCHEMA = TestDatabase.SCHEMA;
    private static final int INSTANCES = 150;
    private static final long SLOW_STEP_MILLIS = 800;
    /** With LISTEN: the notification's delivery, and the step's statement that records its entry. */
    static final double LISTEN_BOUND_MILLIS = 10;

    record Job(boolean slow) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final Random random = new Random(28);

    /** A fast step does nothing; a slow one notes when it was entered, by the database's clock, and works 800 ms. */
    private static MachineDefinition jobs() {
        return MachineDefinition.builder("job", 1, Job.class)
                .step("run", (job, ctx) -> {
                    if (job.slow()) {
                        TestDatabase.jdbc().update("INSERT INTO " + SCHEMA + ".test_effect (instance_id, label, "
                                + "started_at) VALUES (?, 'entered', clock_timestamp())", ctx.instanceId());
                        Thread.sleep(SLOW_STEP_MILLIS); // the work: a slow step
                    }
                    return Outcome.done();
                })
                .build();
    }

    @ParameterizedTest
    @EnumSource(WakeUps.class)
    void noStepIsEnteredLaterThanTheBoundAfterItsCancelCommittedOnAnyNode(WakeUps wakeUps) {
        MachineDefinition machine = jobs();
        List<DurableEngine> nodes = IntStream.range(0, 3).mapToObj(n -> engines.build("node-" + n, settings ->
                settings.queue("default", new QueueSettings(4, 16)).wakeUps(wakeUps), machine)).toList();
        for (DurableEngine node : nodes) {
            learnFastSteps(node);
        }
        nodes.forEach(node -> node.resume("default"));

        List<Long> ids = nodes.get(0).client().startAll("job", Collections.nCopies(INSTANCES,
                StartRequest.of(new Job(true)))).stream().map(started -> started.id()).toList();
        // Each node claims a slot's worth and a batch that waits: 4 run, 16 wait, on every node. A running step is
        // told from a waiting claim by the entry it records, so the wait is also for the 12 running steps' entries:
        // cancelling one of those would free its slot for a waiting row.
        await().atMost(Duration.ofSeconds(10)).until(() -> entered() >= 3 * 4 && waitingClaimed().size() >= 3 * 12);

        // Half of the instances: first the rows waiting claimed, each through a random other node than the one that
        // holds it, then rows not claimed yet, through random nodes.
        List<Long> candidates = new ArrayList<>(waitingClaimed().keySet());
        List<Long> runnable = new ArrayList<>(TestDatabase.jdbc().queryForList("SELECT id FROM " + SCHEMA
                + ".durable_instance WHERE status = 'runnable' AND id = ANY (?)", Long.class,
                (Object) ids.toArray(Long[]::new)));
        Collections.shuffle(runnable, random);
        candidates.addAll(runnable);
        List<Long> toCancel = new ArrayList<>();
        int cancelledWhileWaitingElsewhere = 0;
        for (long id : candidates) {
            if (toCancel.size() == INSTANCES / 2) {
                break;
            }
            Cancel cancel = cancelThroughRandomNode(id, nodes);
            if (cancel.cancelled()) {
                toCancel.add(id);
                cancelledWhileWaitingElsewhere += cancel.waitingElsewhere() ? 1 : 0;
            }
        }
        assertThat(toCancel).hasSize(INSTANCES / 2);

        await().atMost(Duration.ofSeconds(60)).until(() -> ids.stream().allMatch(id -> {
            String status = TestDatabase.status(id);
            return status.equals("done") || status.equals("cancelled");
        }) && nodes.stream().allMatch(node -> node.claims() == 0));
        assertThat(ids.stream().filter(id -> TestDatabase.status(id).equals("cancelled")).count())
                .isEqualTo(INSTANCES / 2);
        assertThat(cancelledWhileWaitingElsewhere).as("cancels of rows waiting claimed on another node")
                .isGreaterThanOrEqualTo(25);

        Double worstMillis = TestDatabase.jdbc().queryForObject("""
                SELECT max(extract(epoch FROM entered.started_at - cancel.started_at) * 1000)
                FROM %s.test_effect cancel
                JOIN %s.test_effect entered ON entered.instance_id = cancel.instance_id AND entered.label = 'entered'
                WHERE cancel.label = 'cancel'
                """.formatted(SCHEMA, SCHEMA), Double.class);
        long neverEntered = toCancel.stream().filter(id -> TestDatabase.jdbc().queryForObject("SELECT count(*) FROM "
                + SCHEMA + ".test_effect WHERE instance_id = ? AND label = 'entered'", Long.class, id) == 0).count();
        System.out.printf("CancelAcrossNodesTest (%s): %d cancels, %d of rows waiting claimed on another node, %d never "
                + "entered; latest entry after a cancel committed: %s ms%n", wakeUps, toCancel.size(),
                cancelledWhileWaitingElsewhere, neverEntered, worstMillis);
        assertThat(neverEntered).as("rows cancelled while they waited do not run").isGreaterThanOrEqualTo(25);
        if (worstMillis != null) {
            assertThat(worstMillis).as("the latest step entry after its cancel committed, in ms")
                    .isLessThanOrEqualTo(wakeUps == WakeUps.LISTEN ? LISTEN_BOUND_MILLIS
                            : (double) QueueOwner.CHECK_AFTER.toMillis());
        }
    }

    /**
     * Starts {@code node} alone (the others, if started, pause the queue) and runs fast steps on it until its queue's
     * owner has learnt that they take microseconds and lets a batch of rows wait for a slot; then pauses it there.
     */
    private void learnFastSteps(DurableEngine node) {
        engines.start(node);
        for (int round = 0; round < 10 && node.owner("default").prefetch() < 12; round++) {
            List<Long> warmUp = node.client().startAll("job", Collections.nCopies(100,
                    StartRequest.of(new Job(false)))).stream().map(started -> started.id()).toList();
            await().atMost(Duration.ofSeconds(20)).until(() -> warmUp.stream().allMatch(id -> TestDatabase
                    .status(id).equals("done")));
        }
        assertThat(node.owner("default").prefetch()).as("rows that may wait for a slot").isGreaterThanOrEqualTo(12);
        node.pause("default");
    }

    /** How many slow steps have been entered. */
    private static long entered() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + SCHEMA + ".test_effect WHERE label ="
                + " 'entered'", Long.class);
    }

    /** Rows claimed by a node whose step has not been entered: they wait for a slot. By id, the node holding them. */
    private static Map<Long, String> waitingClaimed() {
        Map<Long, String> waiting = new LinkedHashMap<>();
        TestDatabase.jdbc().query("SELECT i.id, i.lease_owner FROM " + SCHEMA + ".durable_instance i WHERE i.status = "
                + "'executing' AND NOT EXISTS (SELECT 1 FROM " + SCHEMA + ".test_effect e WHERE e.instance_id = i.id"
                + " AND e.label = 'entered') ORDER BY i.id", row -> {
                    waiting.put(row.getLong(1), row.getString(2));
                });
        return waiting;
    }

    /** What a cancel found: whether it cancelled, and whether the row waited claimed by another node. */
    record Cancel(boolean cancelled, boolean waitingElsewhere) {
    }

    /**
     * Cancels through a random node (not the one holding the row's claim, if one does), in a transaction that records, last before its commit, the database's clock:
     * the commit comes after that time, so an entry measured from it is, if anything, later than it was. An
     * instance that ended meanwhile is refused and not counted.
     */
    private Cancel cancelThroughRandomNode(long id, List<DurableEngine> nodes) {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(
                TestDatabase.dataSource()));
        return transaction.execute(status -> {
            String holder = waitingClaimed().get(id);
            List<DurableEngine> others = nodes.stream().filter(node -> !node.nodeId().equals(holder)).toList();
            DurableEngine through = others.get(random.nextInt(others.size()));
            CancelResult result = through.client().cancel(id, "called off");
            if (result.outcome() != CancelResult.Cancellation.CANCELLED) {
                assertThat(result.outcome()).isEqualTo(CancelResult.Cancellation.REFUSED_TERMINAL_INSTANCE);
                return new Cancel(false, false);
            }
            TestDatabase.jdbc().update("INSERT INTO " + SCHEMA + ".test_effect (instance_id, label, started_at) "
                    + "VALUES (?, 'cancel', clock_timestamp())", id);
            return new Cancel(true, holder != null && !holder.equals(through.nodeId()));
        });
    }
}
