package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.testing.CountingDataSource;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A local start claims its own row in its insert when the row would start here at once, and the step runs once the
 * start commits, without a pick (docs/DESIGN.md, "Local starts"); every case where it must not, or where the claim
 * must be given back or handed back, ends as it did before: the row is picked.
 */
class LocalStartTest {

    record Job(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final CountingDataSource counting = new CountingDataSource(TestDatabase.dataSource());
    private final List<Integer> ran = new CopyOnWriteArrayList<>();
    private final Map<Integer, CountDownLatch> started = new ConcurrentHashMap<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private DurableEngine engine;

    @AfterEach
    void stop() {
        release.countDown();
        if (engine != null) {
            engine.close();
        }
    }

    /** Jobs whose numbers from 100 on hold their step until {@link #release}. */
    private MachineDefinition jobs() {
        return MachineDefinition.builder("job", 1, Job.class)
                .step("run", (job, ctx) -> {
                    ran.add(job.n());
                    started.computeIfAbsent(job.n(), n -> new CountDownLatch(1)).countDown();
                    if (job.n() >= 100 && !release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    return Outcome.done();
                })
                .build();
    }

    /**
     * A node whose probe and poller stay asleep unless woken (a minute), on the counting data source: what runs is what
     * a start makes run.
     */
    private DurableEngine node(UnaryOperator<EngineSettings.Builder> adjust) {
        MachineDefinition jobs = jobs();
        engine = DurableEngine.builder(counting.dataSource(), MachineRegistry.of(jobs))
                .settings(adjust.apply(EngineFixture.fastSettings("local", jobs)
                        .pollInterval(Duration.ofMinutes(1))
                        .idlePollInterval(Duration.ofMinutes(1))
                        .scheduleMisfireThreshold(Duration.ofMinutes(2)))
                        .build())
                .build();
        engine.start();
        // Settled: the poller's first pick (of nothing) is done, and what its start woke has looked too.
        await().pollDelay(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(() -> picks() > 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.queues().get("default").claims() == 0);
        counting.reset();
        return engine;
    }

    private DurableEngine node() {
        return node(UnaryOperator.identity());
    }

    private long picks() {
        return counting.statements().stream().filter(sql -> sql.contains("durable: pick")).count();
    }

    private void awaitStarted(int n) throws InterruptedException {
        assertThat(started.computeIfAbsent(n, k -> new CountDownLatch(1)).await(10, TimeUnit.SECONDS))
                .as("job %d started", n).isTrue();
    }

    private int claims() {
        return engine.queues().get("default").claims();
    }

    private static TransactionTemplate transactions() {
        return new TransactionTemplate(new DataSourceTransactionManager(TestDatabase.dataSource()));
    }

    /** The row as a start on another node leaves it: runnable, due now unless delayed. */
    private static long insertedElsewhere(int n, int priority, String delay) {
        return TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, priority, eligible_at)"
                + " VALUES ('job', 1, 'run', ?::jsonb, 'default', ?, now() + ?::interval) RETURNING id", Long.class,
                "{\"n\": " + n + "}", priority, delay);
    }

    @Test
    void aStartOnAnIdleNodeClaimsItsRowInTheInsertAndRunsWithoutAPick() throws Exception {
        node();

        long id = engine.client().start("job", new Job(1)).id();

        awaitStarted(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> "done".equals(TestDatabase.status(id)));
        assertThat(picks()).as("picks after the start").isZero();
        assertThat(engine.stats().picked()).as("the claim counts as picked").isEqualTo(1);
        assertThat(claims()).isZero();
    }

    @Test
    void aStartInATransactionRunsOnlyOnceItCommitsAndARolledBackOneGivesItsClaimBack() throws Exception {
        node();
        DurableClient client = engine.client();

        long committed = transactions().execute(status -> {
            long id = client.start("job", new Job(1)).id();
            // Claimed by this node in the caller's transaction, and not run before it commits.
            assertThat(TestDatabase.jdbc().queryForMap("SELECT status::text AS status, lease_owner FROM "
                    + TestDatabase.SCHEMA + ".durable_instance WHERE id = ?", id))
                    .isEqualTo(Map.of("status", "executing", "lease_owner", engine.nodeId()));
            assertThat(ran).isEmpty();
            assertThat(claims()).isEqualTo(1);
            return id;
        });
        awaitStarted(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> "done".equals(TestDatabase.status(committed)));

        transactions().executeWithoutResult(status -> {
            client.start("job", new Job(2));
            assertThat(claims()).isEqualTo(1);
            status.setRollbackOnly();
        });
        assertThat(claims()).as("the promise given back").isZero();
        assertThat(ran).containsExactly(1);
        assertThat(picks()).isZero();
    }

    @Test
    void aDueRowAheadInTheQueueRunsFirstThroughAPick() throws Exception {
        node(settings -> settings.queue("default", QueueSettings.concurrency(1)));
        insertedElsewhere(7, 0, "0 seconds");

        engine.client().start("job", new Job(8));

        awaitStarted(8);
        assertThat(ran).as("pick order: the row that was due first").containsExactly(7, 8);
        assertThat(picks()).isPositive();
    }

    @Test
    void aRowOfAHigherPriorityWaitingAheadStopsTheClaimButALaterRowOfTheSamePriorityDoesNot() throws Exception {
        node();
        insertedElsewhere(7, 0, "1 hour"); // a timer of the same priority: not due

        engine.client().start("job", new Job(8));
        awaitStarted(8);
        assertThat(picks()).as("claimed in the insert").isZero();

        insertedElsewhere(9, -5, "1 hour"); // a higher priority, not due either: the pick decides
        engine.client().start("job", new Job(10));
        awaitStarted(10);
        assertThat(picks()).isPositive();
        assertThat(ran).containsExactly(8, 10);
    }

    @Test
    void rowsThatMayNotStartAtOnceAreLeftToThePick() throws Exception {
        node();
        DurableClient client = engine.client();

        long partitioned = client.start("job", new Job(1), StartOptions.defaults().partitionKey("k")).id();
        awaitStarted(1);
        assertThat(picks()).as("a partitioned row is picked").isPositive();

        long delayed = client.start("job", new Job(2), StartOptions.defaults().delay(Duration.ofMillis(300))).id();
        assertThat(TestDatabase.status(delayed)).isEqualTo("runnable");
        awaitStarted(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> "done".equals(TestDatabase.status(delayed))
                && claims() == 0);

        engine.pause("default");
        long paused = client.start("job", new Job(3)).id();
        assertThat(TestDatabase.status(paused)).isEqualTo("runnable");
        assertThat(claims()).isZero();
        engine.resume("default");
        awaitStarted(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> "done".equals(TestDatabase.status(partitioned)));
    }

    @Test
    void aFullQueueLeavesTheStartToThePick() throws Exception {
        node(settings -> settings.queue("default", QueueSettings.concurrency(1)));
        DurableClient client = engine.client();
        client.start("job", new Job(100)); // holds the one slot
        awaitStarted(100);

        long second = client.start("job", new Job(2)).id();

        assertThat(TestDatabase.status(second)).isEqualTo("runnable");
        assertThat(claims()).isEqualTo(1);
        release.countDown();
        awaitStarted(2);
        assertThat(picks()).isPositive();
    }

    @Test
    void aStartWhoseUniqueKeyIsHeldGivesItsPromiseBack() throws Exception {
        node();
        DurableClient client = engine.client();
        long holder = client.start("job", new Job(100), StartOptions.defaults().uniqueKey("order-1")).id();
        awaitStarted(100);

        var again = client.start("job", new Job(101), StartOptions.defaults().uniqueKey("order-1"));

        assertThat(again.id()).isEqualTo(holder);
        assertThat(again.created()).isFalse();
        assertThat(claims()).as("only the holder's claim").isEqualTo(1);
    }

    @Test
    void aNodeThatStopsBeforeTheStartCommitsHandsTheClaimedRowBack() throws Exception {
        node();
        DurableClient client = engine.client();

        long id = transactions().execute(status -> {
            long inserted = client.start("job", new Job(1)).id();
            engine.stop(); // between the insert and the commit
            return inserted;
        });

        assertThat(TestDatabase.status(id)).isEqualTo("runnable");
        assertThat(TestDatabase.row(id).get("lease_owner")).isNull();
        assertThat(ran).isEmpty();
        DurableEngine other = engines.start(jobs());
        awaitStarted(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> "done".equals(TestDatabase.status(id)));
        assertThat(other.stats().picked()).isEqualTo(1);
    }
}
