package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.durable.Outcome;
import dev.durable.StartResult;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing (docs/DESIGN.md, "Fencing"; pitfalls P3 and P14): a worker whose lease was lost and whose row was re-claimed
 * can no longer write anything — not its outcome, not a heartbeat. Its attempts are counted.
 */
class FencingTest {

    record Note(String text) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final CountDownLatch staleStepStarted = new CountDownLatch(1);
    private final CountDownLatch releaseStaleStep = new CountDownLatch(1);

    /** Attempt 0 blocks until released, then says "stale"; later attempts say "fresh" at once. */
    private MachineDefinition machine() {
        return machine("fenced", ctx -> { });
    }

    /** {@link #machine()} named {@code name}, telling {@code onStart} of every attempt as it starts. */
    private MachineDefinition machine(String name, Consumer<StepContext> onStart) {
        return MachineDefinition.builder(name, 1, Note.class)
                .step("write", (state, ctx) -> {
                    onStart.accept(ctx);
                    if (ctx.attempt() == 0) {
                        staleStepStarted.countDown();
                        // Ignores interruption on purpose: the stale worker carries on as if nothing happened.
                        while (!releaseStaleStep.await(10, TimeUnit.SECONDS)) {
                            Thread.onSpinWait();
                        }
                        return Outcome.done("stale");
                    }
                    return Outcome.done("fresh");
                })
                .build();
    }

    /** Engine settings where the heartbeat does not come round during the test (the lease is expired by hand). */
    /**
     * The stale node's settings: one slot, taken by the step it blocks, so the row its lease lost can be picked again
     * only by the node the test means (with more slots, the stale node itself could win that pick).
     */
    private static UnaryOperator<EngineSettings.Builder> oneSlot() {
        return settings -> slowHeartbeat().apply(settings).queue("default", QueueSettings.concurrency(1));
    }

    private static UnaryOperator<EngineSettings.Builder> slowHeartbeat() {
        return settings -> settings.leaseTtl(Duration.ofSeconds(60)).heartbeatInterval(Duration.ofSeconds(20))
                .reaperInterval(Duration.ofHours(1)).shutdownGracePeriod(Duration.ZERO);
    }

    /**
     * Waits for the first run of {@code engine}'s reaper, which comes at start; the next comes much later. A lease
     * expired by hand before that run would be reaped by the stale node itself.
     */
    private static void awaitFirstReap(DurableEngine engine) {
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.stats().reaperLastRun() != null);
    }

    /** Makes the stale worker's lease look expired: as if its heartbeats had stopped reaching the database. */
    private static void expireLease(long id) {
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET lease_expires_at = now() - interval '1 s'"
                + " WHERE id = ?", id);
    }

    @Test
    void aStaleOutcomeAfterTheRowWasReapedAndRepickedElsewhereChangesNothingAndIsCounted() throws Exception {
        MachineDefinition machine = machine();
        DurableEngine stale = engines.start("stale-node", oneSlot(), machine);
        awaitFirstReap(stale);
        long id = stale.client().start("fenced", new Note("x")).id();
        assertThat(staleStepStarted.await(10, TimeUnit.SECONDS)).isTrue();
        long staleToken = ((Number) TestDatabase.row(id).get("lease_token")).longValue();

        expireLease(id);
        DurableEngine fresh = engines.start("fresh-node", slowHeartbeat(), machine);
        fresh.reapNow(); // its reaper's first run, at start, may already have done it
        // ... or may be doing it right now: then reapNow skipped the row its reaper holds, whose count lands later.
        await().atMost(Duration.ofSeconds(10)).until(() -> fresh.stats().reaped() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        Map<String, Object> afterFresh = TestDatabase.row(id);
        assertThat(afterFresh.get("result")).isEqualTo("\"fresh\"");
        assertThat(afterFresh.get("lease_token")).isNotEqualTo(staleToken);

        releaseStaleStep.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> stale.stats().outcomesFenced() == 1);

        Map<String, Object> afterStale = TestDatabase.row(id);
        for (String column : new String[] {"status", "step", "state", "result", "attempt", "last_error",
                "lease_owner", "lease_token", "lease_expires_at", "eligible_at"}) {
            assertThat(afterStale.get(column)).as(column).isEqualTo(afterFresh.get(column));
        }
        assertThat(afterStale.get("result")).isEqualTo("\"fresh\"");
        assertThat(afterStale.get("attempt")).isEqualTo(1);
        assertThat(stale.stats().outcomesCommitted()).isZero();
        // A lease lost without a cancel is a WARN (the end of a cancel is not: CancelLogTest).
        assertThat(logs.at(Level.WARN)).contains("Outcome DONE of instance " + id + " discarded: the claim's lease was"
                + " lost (the row was reaped and may run elsewhere)");
    }

    /** The token is per claim, so a node that re-picks its own reaped row fences its older claim (pitfall P3). */
    @Test
    void aNodeThatRepicksItsOwnReapedRowFencesItsEarlierClaim() throws Exception {
        MachineDefinition machine = machine();
        DurableEngine node = engines.start("same-node", settings -> slowHeartbeat().apply(settings)
                .queue("default", QueueSettings.concurrency(2)), machine);
        awaitFirstReap(node);
        long id = node.client().start("fenced", new Note("x")).id();
        assertThat(staleStepStarted.await(10, TimeUnit.SECONDS)).isTrue();

        expireLease(id);
        assertThat(node.reapNow()).isEqualTo(1);
        // The same node (same node id, same lease_owner) claims the row again and finishes it.
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        // The committer counts an outcome once its commit has returned, a moment after the row reads done.
        await().atMost(Duration.ofSeconds(10)).until(() -> node.stats().outcomesCommitted() == 1);

        releaseStaleStep.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.stats().outcomesFenced() == 1);
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"fresh\"").containsEntry("attempt", 1);
    }

    /**
     * A node that re-picks its own reaped row runs two claims of one instance at once: the stale one (still in user
     * code) and the new one. It tracks both: the heartbeat extends the new claim and interrupts the stale one, and
     * the stale outcome is fenced while the new one applies.
     */
    @Test
    void aNodeRunningTwoClaimsOfOneRowExtendsTheNewOneAndInterruptsTheStaleOne() throws Exception {
        CountDownLatch staleInterrupted = new CountDownLatch(1);
        CountDownLatch freshStarted = new CountDownLatch(1);
        CountDownLatch releaseFresh = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("two-claims", 1, Note.class)
                .step("write", (state, ctx) -> {
                    if (ctx.attempt() == 0) {
                        staleStepStarted.countDown();
                        try {
                            new CountDownLatch(1).await();
                        } catch (InterruptedException e) {
                            staleInterrupted.countDown();
                            throw e;
                        }
                    }
                    freshStarted.countDown();
                    releaseFresh.await();
                    return Outcome.done("fresh");
                })
                .build();
        DurableEngine node = engines.start("same-node", settings -> slowHeartbeat().apply(settings)
                .queue("default", QueueSettings.concurrency(2)), machine);
        awaitFirstReap(node);
        long id = node.client().start("two-claims", new Note("x")).id();
        assertThat(staleStepStarted.await(10, TimeUnit.SECONDS)).isTrue();
        expireLease(id);
        assertThat(node.reapNow()).isEqualTo(1);
        assertThat(freshStarted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(node.claims()).isEqualTo(2);
        Object expiresBefore = TestDatabase.row(id).get("lease_expires_at");

        node.heartbeatNow();

        assertThat(staleInterrupted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(node.stats().leasesLost()).isEqualTo(1);
        assertThat((Timestamp) TestDatabase.row(id).get("lease_expires_at")).isAfter((Timestamp) expiresBefore);
        await().atMost(Duration.ofSeconds(10)).until(() -> node.stats().outcomesFenced() == 1);
        releaseFresh.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"fresh\"");
        await().atMost(Duration.ofSeconds(10)).until(() -> node.claims() == 0);
        assertThat(node.stats().outcomesCommitted()).isEqualTo(1);
    }

    @Test
    void aHeartbeatAfterTheLeaseWasLostExtendsNothingAndInterruptsTheStaleStep() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("heartbeat-fenced", 1, Note.class)
                .step("write", (state, ctx) -> {
                    if (ctx.attempt() > 0) {
                        return Outcome.await("never", state); // the fresh claim parks, keeping its row still
                    }
                    started.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                    return Outcome.done("unreachable");
                })
                .build();
        DurableEngine stale = engines.start("stale-node", oneSlot(), machine);
        awaitFirstReap(stale);
        long id = stale.client().start("heartbeat-fenced", new Note("x")).id();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        expireLease(id);
        DurableEngine fresh = engines.start("fresh-node", slowHeartbeat(), machine);
        fresh.reapNow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        Map<String, Object> before = TestDatabase.row(id);

        stale.heartbeatNow();

        assertThat(stale.stats().leasesLost()).isEqualTo(1);
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(logs.at(Level.WARN)).anySatisfy(line -> assertThat(line)
                .startsWith("Lease of the claim on instance " + id + " was lost (it was reaped"));
        await().atMost(Duration.ofSeconds(10)).until(() -> stale.stats().outcomesFenced() == 1);
        Map<String, Object> after = TestDatabase.row(id);
        assertThat(after.get("status")).isEqualTo("awaiting_signal");
        assertThat(after.get("lease_token")).isEqualTo(before.get("lease_token"));
        assertThat(after.get("lease_expires_at")).isEqualTo(before.get("lease_expires_at"));
    }

    /**
     * The token a step sees ({@code ctx.leaseToken()}) and the one its {@link StepEvent} reports are those of its own
     * claim: a later claim of the same row gets a larger token, which is the one the row keeps once its outcome is
     * written; the stale claim's event says FENCED and names the stale token.
     */
    @Test
    void aStepAndItsEventCarryTheTokenOfTheirOwnClaimAndALaterClaimHasALargerOne() throws Exception {
        Map<Integer, Long> tokenByAttempt = new ConcurrentHashMap<>();
        MachineDefinition machine = machine("tokens", ctx -> tokenByAttempt.put(ctx.attempt(), ctx.leaseToken()));
        List<StepEvent> staleEvents = new CopyOnWriteArrayList<>();
        List<StepEvent> freshEvents = new CopyOnWriteArrayList<>();
        try (DurableEngine stale = engineWithListener("stale-node", oneSlot(), machine, staleEvents);
                DurableEngine fresh = engineWithListener("fresh-node", slowHeartbeat(), machine, freshEvents)) {
            stale.start();
            awaitFirstReap(stale);
            long id = stale.client().start("tokens", new Note("x")).id();
            assertThat(staleStepStarted.await(10, TimeUnit.SECONDS)).isTrue();
            long staleToken = ((Number) TestDatabase.row(id).get("lease_token")).longValue();
            assertThat(tokenByAttempt).containsEntry(0, staleToken);

            expireLease(id);
            fresh.start();
            fresh.reapNow();
            await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
            long freshToken = tokenByAttempt.get(1);
            assertThat(freshToken).isGreaterThan(staleToken);
            assertThat(((Number) TestDatabase.row(id).get("lease_token")).longValue()).isEqualTo(freshToken);
            await().atMost(Duration.ofSeconds(10)).until(() -> !freshEvents.isEmpty());
            assertThat(freshEvents).singleElement().satisfies(event -> {
                assertThat(event.leaseToken()).isEqualTo(freshToken);
                assertThat(event.fate()).isEqualTo(StepEvent.Fate.COMMITTED);
            });

            releaseStaleStep.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> !staleEvents.isEmpty());
            assertThat(staleEvents).singleElement().satisfies(event -> {
                assertThat(event.leaseToken()).isEqualTo(staleToken);
                assertThat(event.fate()).isEqualTo(StepEvent.Fate.FENCED);
            });
        }
    }

    private static DurableEngine engineWithListener(String node, UnaryOperator<EngineSettings.Builder> settings,
            MachineDefinition machine, List<StepEvent> events) {
        return DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(machine))
                .settings(settings.apply(EngineFixture.fastSettings(node, machine)).build())
                .listener(new DurableListener() {
                    @Override
                    public void stepFinished(StepEvent event) {
                        events.add(event);
                    }
                })
                .build();
    }

    /**
     * After a commit whose answer was lost, the committer writes the same batch again: a write that now matches no row
     * but whose row carries its claim's token was written by the first attempt, and counts as applied; a stale
     * claim's write does not (docs/DESIGN.md, "Fencing", ambiguous commits).
     */
    @Test
    void aBatchWrittenAgainAfterAnAmbiguousCommitRecognisesTheWritesTheFirstAttemptCommitted() {
        Repositories repositories = Repositories.onTestDatabase();
        TestDatabase.clean();
        List<Long> ids = repositories.starts().insert(List.of(
                new NewInstance("m", 1, "s", "{}", "q", (short) 0, null, 0, null, "{runnable,executing,awaiting_signal}"),
                new NewInstance("m", 1, "s", "{}", "q", (short) 0, null, 0, null, "{runnable,executing,awaiting_signal}")))
                .stream().map(StartResult::id).toList();
        List<ClaimedStep> claimed = repositories.claims().pick("q", Map.of("m", List.of(1)), 2, "node:1",
                Duration.ofMinutes(1));
        List<Transition> batch = claimed.stream().sorted(java.util.Comparator.comparingLong(ClaimedStep::id))
                .map(step -> Transition.next(step, "t", "{\"n\":1}", List.of())).toList();
        // The first attempt wrote only the first row's outcome; the second row's claim was then reaped.
        repositories.transitions().apply(batch.subList(0, 1), false);
        expireLease(ids.get(1));
        assertThat(repositories.claims().reapExpired(10)).containsOnlyKeys(ids.get(1));

        TransitionRepository.Applied again = repositories.transitions().apply(batch, true);

        assertThat(again.applied()).containsExactly(ids.get(0));
        assertThat(TestDatabase.row(ids.get(0))).containsEntry("status", "runnable").containsEntry("step", "t");
        assertThat(TestDatabase.row(ids.get(1))).containsEntry("status", "runnable").containsEntry("step", "s")
                .containsEntry("attempt", 1);
    }

}
