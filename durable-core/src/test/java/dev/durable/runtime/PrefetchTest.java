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
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Prefetch (docs/DESIGN.md, "The life of a step"): a slot is given back when its step hands its outcome to the
 * committer, and a queue whose steps are fast holds a few claimed rows waiting for a slot, so that a slot runs the next
 * row while the previous outcome commits. The guarantees stay: the waiting rows are kept alive by the heartbeat,
 * handed back at once when the node stops, never run once their instance is cancelled, and slow steps claim no more
 * rows than the queue has slots.
 */
class PrefetchTest {

    record Job(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** The first job of the test's instances waits here in its user code until the test lets it go. */
    private final CountDownLatch gateOpen = new CountDownLatch(1);
    private final CountDownLatch gatedStepEntered = new CountDownLatch(1);
    private final Set<Integer> started = ConcurrentHashMap.newKeySet();

    @AfterEach
    void openTheGate() {
        gateOpen.countDown();
    }

    /** Job 0 waits at the gate; every job notes that it started. */
    private MachineDefinition jobs() {
        return MachineDefinition.builder("job", 1, Job.class)
                .step("run", (job, ctx) -> {
                    started.add(job.n());
                    if (job.n() == 0) {
                        gatedStepEntered.countDown();
                        if (!gateOpen.await(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the gate never opened");
                        }
                    }
                    return Outcome.done(job.n());
                })
                .build();
    }

    /** An engine of one slot whose queue has timed fast steps already, so that it prefetches. */
    private DurableEngine warmEngineOfOneSlot(MachineDefinition machine) {
        DurableEngine engine = engines.start("prefetch", settings -> settings
                .queue("default", new QueueSettings(1, 4)), machine);
        List<Long> warmUp = engine.client().startAll("job", IntStream.range(100, 140)
                .mapToObj(n -> StartRequest.of(new Job(n))).toList()).stream().map(r -> r.id()).toList();
        await().atMost(Duration.ofSeconds(10)).until(() -> warmUp.stream().allMatch(id -> TestDatabase.status(id)
                .equals("done")));
        assertThat(engine.queues().get("default").claims()).isZero();
        return engine;
    }

    private long start(DurableEngine engine, int n) {
        return engine.client().start("job", new Job(n)).id();
    }

    /** Waits until the rows are claimed by the node (executing), though the gated step still holds the only slot. */
    private static void awaitClaimed(long... ids) {
        await().atMost(Duration.ofSeconds(10)).until(() -> IntStream.range(0, ids.length)
                .allMatch(k -> TestDatabase.status(ids[k]).equals("executing")));
    }

    @Test
    void theOneSlotRunsTheNextClaimedRowWhileThePreviousOutcomeWaitsToCommit() throws Exception {
        DurableEngine engine = warmEngineOfOneSlot(jobs());
        long gated = start(engine, 0);
        assertThat(gatedStepEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long next = start(engine, 1);
        awaitClaimed(next);
        assertThat(started).as("the only slot is taken by the gated step").doesNotContain(1);

        // The gated step's outcome will wait for this lock; the next row must run meanwhile.
        try (Connection lock = RowLocks.lockRow(TestDatabase.dataSource(), gated)) {
            gateOpen.countDown();
            RowLocks.awaitLockWait("/* durable: terminal */");
            await().atMost(Duration.ofSeconds(10)).until(() -> started.contains(1));
            assertThat(TestDatabase.status(gated)).as("its outcome has not committed").isEqualTo("executing");
            lock.rollback();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(gated).equals("done")
                && TestDatabase.status(next).equals("done"));
    }

    /**
     * The pick waits up to the batch window for claims about to end only while the queue has a backlog, to claim them
     * all at once; a lone start on a queue without one is picked at once, even with an outcome still committing.
     */
    @Test
    void aLoneStartIsPickedAtOnceWhileAnotherOutcomeCommits() throws Exception {
        DurableEngine engine = engines.start("lone-start", settings -> settings
                .queue("default", new QueueSettings(2, 4)).batchWindow(Duration.ofMinutes(1)), jobs());
        long gated = start(engine, 0);
        assertThat(gatedStepEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // The gated step's outcome waits for this lock: its claim is committing, for as long as the test holds it.
        try (Connection lock = RowLocks.lockRow(TestDatabase.dataSource(), gated)) {
            gateOpen.countDown();
            RowLocks.awaitLockWait("/* durable: terminal */");
            assertThat(engine.owner("default").committing()).isOne();
            start(engine, 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> started.contains(1));
            assertThat(TestDatabase.status(gated)).as("its outcome has not committed").isEqualTo("executing");
            lock.rollback();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(gated).equals("done"));
    }

    @Test
    void aStoppingNodeHandsBackTheRowsWaitingForASlotAtOnce() throws Exception {
        DurableEngine engine = warmEngineOfOneSlot(jobs());
        long gated = start(engine, 0);
        assertThat(gatedStepEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long waitingA = start(engine, 1);
        long waitingB = start(engine, 2);
        awaitClaimed(waitingA, waitingB);

        Thread stopping = new Thread(engine::stop);
        stopping.start();

        // While the gated step still runs (the node drains it), the rows that never started are runnable again.
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(waitingA).equals("runnable")
                && TestDatabase.status(waitingB).equals("runnable"));
        assertThat(TestDatabase.row(waitingA).get("lease_owner")).isNull();
        assertThat(TestDatabase.row(waitingA).get("attempt")).as("a hand-back is not a failure").isEqualTo(0);
        assertThat(TestDatabase.status(gated)).isEqualTo("executing");
        assertThat(started).doesNotContain(1, 2);

        gateOpen.countDown();
        stopping.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(TestDatabase.status(gated)).isEqualTo("done");
        assertThat(started).doesNotContain(1, 2);
    }

    @Test
    void rowsWaitingForASlotAreKeptAliveByTheHeartbeat() throws Exception {
        DurableEngine engine = warmEngineOfOneSlot(jobs());
        start(engine, 0);
        assertThat(gatedStepEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long waiting = start(engine, 1);
        awaitClaimed(waiting);
        Timestamp firstLease = TestDatabase.jdbc().queryForObject("SELECT lease_expires_at FROM "
                + TestDatabase.SCHEMA + ".durable_instance WHERE id = ?", Timestamp.class, waiting);

        // The row is executing in the database a moment before the node's owner holds its claim (when the pick
        // returns), and a heartbeat extends the claims the node holds: it beats until the waiting row is one of them.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            engine.heartbeatNow();
            Timestamp renewed = TestDatabase.jdbc().queryForObject("SELECT lease_expires_at FROM "
                    + TestDatabase.SCHEMA + ".durable_instance WHERE id = ?", Timestamp.class, waiting);
            return renewed.after(firstLease);
        });
        assertThat(TestDatabase.status(waiting)).isEqualTo("executing");
    }

    @Test
    void aRowWaitingForASlotWhoseInstanceIsCancelledNeverRuns() throws Exception {
        DurableEngine engine = warmEngineOfOneSlot(jobs());
        long gated = start(engine, 0);
        assertThat(gatedStepEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long waiting = start(engine, 1);
        awaitClaimed(waiting);

        assertThat(engine.client().cancel(waiting, "no longer wanted").outcome())
                .isEqualTo(CancelResult.Cancellation.CANCELLED);
        gateOpen.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(gated).equals("done")
                && engine.queues().get("default").claims() == 0);
        assertThat(started).doesNotContain(1);
        assertThat(TestDatabase.status(waiting)).isEqualTo("cancelled");
    }

    @Test
    void slowStepsClaimNoMoreRowsThanTheQueueHasSlots() {
        // 60 ms per step: 30 ms per row waiting for two slots, past the horizon.
        assertThat(mostClaimsOfSlowSteps(new QueueSettings(2, 10), 60, 12))
                .as("claims running or waiting, seen by the steps").isLessThanOrEqualTo(2);
    }

    /**
     * The same at the queue's defaults (10 slots, picks of up to 256): the batch size only caps the prefetch, which
     * follows the steps' time, so a queue of slow steps holds no more rows than its slots however large its picks.
     */
    @Test
    void atTheDefaultsSlowStepsClaimNoMoreRowsThanTheSlotsWhateverTheBatchSize() {
        assertThat(QueueSettings.defaults().batchSize()).isGreaterThan(QueueSettings.DEFAULT_CONCURRENCY);
        // 120 ms per step: past the 100 ms under which 10 slots prefetch.
        assertThat(mostClaimsOfSlowSteps(QueueSettings.defaults(), 120, 40))
                .as("claims running or waiting, seen by the steps")
                .isLessThanOrEqualTo(QueueSettings.DEFAULT_CONCURRENCY);
    }

    /**
     * Runs {@code count} steps of {@code stepMillis} each on a queue of {@code queue}'s settings; the most claims the
     * steps saw running or waiting (claims whose outcome commits may overlap the next pick, so they are left out).
     */
    private int mostClaimsOfSlowSteps(QueueSettings queue, long stepMillis, int count) {
        AtomicInteger mostClaims = new AtomicInteger();
        DurableEngine[] engine = new DurableEngine[1];
        MachineDefinition slow = MachineDefinition.builder("job", 1, Job.class)
                .step("run", (job, ctx) -> {
                    QueueOwner owner = engine[0].owner("default");
                    mostClaims.accumulateAndGet(owner.claimsNotCommitting(), Math::max);
                    Thread.sleep(stepMillis); // the work: a slow step
                    return Outcome.done();
                })
                .build();
        engine[0] = engines.start("slow", settings -> settings.queue("default", queue), slow);
        List<Long> ids = engine[0].client().startAll("job", IntStream.range(0, count)
                .mapToObj(n -> StartRequest.of(new Job(n))).toList()).stream().map(r -> r.id()).toList();
        await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch(id -> TestDatabase.status(id)
                .equals("done")));
        return mostClaims.get();
    }
}
