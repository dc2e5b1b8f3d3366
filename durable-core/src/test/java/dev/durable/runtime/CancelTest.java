package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.CancelRefusedException;
import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Cancelling an instance (docs/DESIGN.md, "Cancel"): parked, waiting for a timer, runnable or executing on this node
 * or another, it ends cancelled and never runs another step; an ended or missing one is refused with nothing
 * written. The races of a cancel with an outcome are forced in {@link CancelRaceTest}.
 */
class CancelTest {

    record Order(String item) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** What the steps did, in order: "reserve", "interrupted", "ship", ... */
    private final List<String> ran = new CopyOnWriteArrayList<>();
    private final CountDownLatch stepStarted = new CountDownLatch(1);
    private final CountDownLatch never = new CountDownLatch(1);

    /** reserve -> await "paid" -> ship -> done. */
    private MachineDefinition orders() {
        return MachineDefinition.builder("orders", 1, Order.class)
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> {
                    ran.add("reserve");
                    return Outcome.await("paid", order);
                })
                .step("ship", (order, ctx) -> {
                    ran.add("ship");
                    return Outcome.done("shipped " + order.item());
                })
                .build();
    }

    /** A step that runs until interrupted, then tries to move on. */
    private MachineDefinition slow() {
        return MachineDefinition.builder("slow", 1, Order.class)
                .initialStep("work")
                .step("work", (order, ctx) -> {
                    ran.add("work");
                    stepStarted.countDown();
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        ran.add("interrupted");
                    }
                    return Outcome.next("after", order);
                })
                .step("after", (order, ctx) -> {
                    ran.add("after");
                    return Outcome.done("late");
                })
                .build();
    }

    @Test
    void aParkedInstanceEndsCancelledAtOnce_itsSignalsAreClearedAndItsUniqueKeyIsFree() {
        DurableEngine engine = engines.start(orders());
        DurableClient client = engine.client();
        long id = client.start("orders", new Order("book"), StartOptions.defaults().uniqueKey("order-1")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.signal(id, "note", "gift wrap", null).orThrow();
        client.signal(id, "note", "call first", "evt-7").orThrow();

        CancelResult result = client.cancel(id, "customer withdrew");

        assertThat(result).isEqualTo(new CancelResult(id, CancelResult.Cancellation.CANCELLED,
                InstanceStatus.AWAITING_SIGNAL));
        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row).containsEntry("status", "cancelled").containsEntry("last_error", "customer withdrew")
                .containsEntry("awaits", null);
        // The inbox is cleared: the signal without a dedup key is gone, the other stays as a tombstone.
        assertThat(TestDatabase.jdbc().queryForList("SELECT dedup_key, consumed_at IS NOT NULL AS consumed FROM "
                + TestDatabase.SCHEMA + ".durable_signal WHERE instance_id = ?", id))
                .containsExactly(Map.of("dedup_key", "evt-7", "consumed", true));
        assertThat(client.signal(id, "paid", null, null).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE);
        assertThat(client.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.CANCELLED);
        // The unique key is free for a new order.
        assertThat(client.start("orders", new Order("book"), StartOptions.defaults().uniqueKey("order-1"))
                .created()).isTrue();
        assertThat(engine.stats().cancelsApplied()).isOne();
    }

    @Test
    void cancellingAgainAnswersAlreadyCancelledAndWritesNothing() {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order("pen")).id();
        client.cancel(id, "first");
        String before = stored(id);

        CancelResult again = client.cancel(id, "second");

        assertThat(again).isEqualTo(new CancelResult(id, CancelResult.Cancellation.ALREADY_CANCELLED,
                InstanceStatus.CANCELLED));
        assertThat(again.isCancelled()).isTrue();
        assertThat(again.orThrow()).isSameAs(again);
        assertThat(stored(id)).isEqualTo(before).contains("\"last_error\": \"first\"");
    }

    @Test
    void aRunnableInstanceAndOneWaitingForATimerNeverRunAnotherStep() {
        MachineDefinition timer = MachineDefinition.builder("timer", 1, Order.class)
                .initialStep("set")
                .step("set", (order, ctx) -> Outcome.next("ring", order, Duration.ofSeconds(1)))
                .step("ring", (order, ctx) -> {
                    ran.add("ring");
                    return Outcome.done("rang");
                })
                .build();
        DurableClient client = engines.clientOnly(orders(), timer);
        long runnable = client.start("orders", new Order("lamp")).id();
        long delayed = client.start("timer", new Order("tea"), StartOptions.defaults().delay(Duration.ofMillis(300)))
                .id();

        assertThat(client.cancel(runnable, null).status()).isEqualTo(InstanceStatus.RUNNABLE);
        assertThat(client.cancel(delayed, " ").status()).isEqualTo(InstanceStatus.RUNNABLE);
        DurableEngine engine = engines.start("worker", UnaryOperator.identity(), orders(), timer);

        // Once both are past due, a probe started after them runs, and only the probe ran.
        await().atMost(Duration.ofSeconds(10)).until(() -> waitedPastDue(delayed));
        long probe = engine.client().start("orders", new Order("probe")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(probe).equals("awaiting_signal"));
        assertThat(ran).containsExactly("reserve");
        assertThat(TestDatabase.row(runnable)).containsEntry("status", "cancelled")
                .containsEntry("last_error", "cancelled");
        assertThat(TestDatabase.row(delayed)).containsEntry("status", "cancelled")
                .containsEntry("last_error", "cancelled");
    }

    @Test
    void anExecutingStepOnThisNodeIsInterruptedAndItsOutcomeDiscarded() throws Exception {
        DurableEngine engine = engines.start("worker", settings -> settings.heartbeatInterval(Duration.ofMinutes(1))
                .leaseTtl(Duration.ofMinutes(3)), slow());
        long id = engine.client().start("slow", new Order("desk")).id();
        stepStarted.await();

        CancelResult result = engine.client().cancel(id, "operator");

        assertThat(result.status()).isEqualTo(InstanceStatus.EXECUTING);
        // Interrupted at once (the heartbeat is a minute away), and its next is fenced off.
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.stats().outcomesFenced() == 1);
        assertThat(ran).containsExactly("work", "interrupted");
        assertThat(TestDatabase.row(id)).containsEntry("status", "cancelled").containsEntry("step", "work")
                .containsEntry("lease_token", null);
        assertThat(engine.claims()).isZero();
    }

    /** Polling only: the heartbeat finds the claim gone (with LISTEN the cancel's notification comes first, WakeUpTest). */
    @Test
    void anExecutingStepOnAnotherNodeIsInterruptedAtThatNodesHeartbeat() throws Exception {
        DurableEngine worker = engines.start("worker", settings -> settings.heartbeatInterval(Duration.ofMillis(200))
                .wakeUps(WakeUps.POLL), slow());
        DurableClient elsewhere = engines.clientOnly(slow());
        long id = elsewhere.start("slow", new Order("chair")).id();
        stepStarted.await();

        assertThat(elsewhere.cancel(id, "operator").status()).isEqualTo(InstanceStatus.EXECUTING);

        await().atMost(Duration.ofSeconds(10)).until(() -> worker.stats().outcomesFenced() == 1
                && worker.stats().leasesLost() == 1);
        assertThat(ran).containsExactly("work", "interrupted");
        assertThat(TestDatabase.row(id)).containsEntry("status", "cancelled").containsEntry("last_error", "operator");
    }

    @Test
    void aDoneFailedOrMissingInstanceIsRefusedAndNothingIsWritten() {
        MachineDefinition ends = MachineDefinition.builder("ends", 1, Order.class)
                .step("end", (order, ctx) -> order.item().equals("fail") ? Outcome.stop("declined")
                        : Outcome.done("ok"))
                .build();
        DurableEngine engine = engines.start(ends);
        DurableClient client = engine.client();
        long done = client.start("ends", new Order("ok")).id();
        long failed = client.start("ends", new Order("fail")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(done).equals("done")
                && TestDatabase.status(failed).equals("failed"));
        String doneBefore = stored(done);
        String failedBefore = stored(failed);

        CancelResult refusedDone = client.cancel(done, "too late");
        CancelResult refusedFailed = client.cancel(failed, "too late");
        CancelResult missing = client.cancel(987_654_321L, "who?");

        assertThat(refusedDone).isEqualTo(new CancelResult(done, CancelResult.Cancellation.REFUSED_TERMINAL_INSTANCE,
                InstanceStatus.DONE));
        assertThat(refusedFailed.status()).isEqualTo(InstanceStatus.FAILED);
        assertThat(missing).isEqualTo(new CancelResult(987_654_321L,
                CancelResult.Cancellation.REFUSED_UNKNOWN_INSTANCE, null));
        assertThat(stored(done)).isEqualTo(doneBefore);
        assertThat(stored(failed)).isEqualTo(failedBefore);
        assertThatThrownBy(refusedDone::orThrow).isInstanceOf(CancelRefusedException.class)
                .hasMessage("Cancel refused: instance " + done + " is done and stays as it ended");
        assertThatThrownBy(missing::orThrow).hasMessage("Cancel refused: no instance with id 987654321");
        assertThat(engine.stats().cancelsRefused()).isEqualTo(3);
    }

    @Test
    void aCancelInTheCallersTransactionHoldsOnlyIfItCommits() {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order("rug")).id();
        TransactionTemplate transaction = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));

        transaction.executeWithoutResult(status -> {
            assertThat(client.cancel(id, "changed my mind").outcome()).isEqualTo(CancelResult.Cancellation.CANCELLED);
            status.setRollbackOnly();
        });
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");

        transaction.executeWithoutResult(status -> client.cancel(id, "for good"));
        assertThat(TestDatabase.row(id)).containsEntry("status", "cancelled").containsEntry("last_error", "for good");
    }

    @Test
    void aReasonTheDatabaseCannotStoreIsRefusedAndNothingIsWritten() {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order("vase")).id();

        assertThatThrownBy(() -> client.cancel(id, "bad\u0000reason"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The reason for cancelling instance " + id)
                .hasMessageContaining("nothing was cancelled");
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");
    }

    /** Every column of the instance's row, as JSON text: equal only if nothing was written. */
    private static String stored(long id) {
        return TestDatabase.jdbc().queryForObject("SELECT to_jsonb(i)::text FROM " + TestDatabase.SCHEMA
                + ".durable_instance i WHERE id = ?", String.class, id);
    }

    private static boolean waitedPastDue(long id) {
        return Boolean.TRUE.equals(TestDatabase.jdbc().queryForObject("SELECT eligible_at < now() - interval '1 s'"
                + " FROM " + TestDatabase.SCHEMA + ".durable_instance WHERE id = ?", Boolean.class, id));
    }
}
