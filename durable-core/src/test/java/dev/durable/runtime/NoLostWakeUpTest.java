package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.SignalResult;
import dev.durable.StartResult;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No lost wake-up (docs/DESIGN.md, "Signals and wake-ups"; pitfalls P1 and P2): a park (the {@code await} outcome) and
 * a signal delivery racing for one instance. Both interleavings are forced: a third connection holds the row lock while
 * the two queue up behind it in a chosen order (PostgreSQL grants a row lock to its waiters in arrival order), then
 * lets go. Whichever goes second must see the first: the instance ends runnable with the signal in its inbox.
 */
class NoLostWakeUpTest {

    private final DataSource dataSource = TestDatabase.dataSource();
    private final Repositories repositories = Repositories.onTestDatabase();
    private final ClaimRepository claims = repositories.claims();
    private final TransitionRepository transitions = repositories.transitions();
    private final SignalRepository signals = repositories.signals();

    /**
     * One thread per blocked statement. Not the common pool: on a two-core machine it has a single worker, and the
     * second statement would never reach the database while the first waits for the lock.
     */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private ClaimedStep claimed;

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @BeforeEach
    void claimAnInstance() {
        TestDatabase.clean();
        List<StartResult> started = repositories.starts().insert(List.of(new NewInstance("parker", 1, "pay", "{}", "q",
                (short) 0, null, 0, null, "{runnable,executing,awaiting_signal}")));
        claimed = claims.pick("q", Map.of("parker", List.of(1)), 1, "node:1", Duration.ofMinutes(1)).get(0);
        assertThat(claimed.id()).isEqualTo(started.get(0).id());
    }

    @Test
    void deliveryQueuedBeforeThePark_theParkSeesTheSignalAndStaysRunnable() throws Exception {
        try (Connection blocker = RowLocks.lockRow(dataSource, claimed.id())) {
            CompletableFuture<SignalResult> delivery = CompletableFuture.supplyAsync(
                    () -> signals.deliver(claimed.id(), "paid", "{\"amount\": 5}", null).result(), threads);
            RowLocks.awaitLockWait("/* durable: deliver signal */");
            CompletableFuture<Set<Long>> park = CompletableFuture.supplyAsync(() -> transitions.apply(
                    List.of(Transition.await(claimed, "paid", "{}", List.of())), false).applied(), threads);
            RowLocks.awaitLockWait("/* durable: lock claims */");

            blocker.commit();

            assertThat(delivery.get()).isEqualTo(new SignalResult(claimed.id(), SignalResult.Delivery.DELIVERED,
                    false)); // the row was still executing: nothing to wake
            assertThat(park.get()).containsExactly(claimed.id());
        }
        assertWokenWithTheSignal();
    }

    @Test
    void parkQueuedBeforeTheDelivery_theDeliveryFindsItParkedAndWakesIt() throws Exception {
        try (Connection blocker = RowLocks.lockRow(dataSource, claimed.id())) {
            CompletableFuture<Set<Long>> park = CompletableFuture.supplyAsync(() -> transitions.apply(
                    List.of(Transition.await(claimed, "paid", "{}", List.of())), false).applied(), threads);
            RowLocks.awaitLockWait("/* durable: lock claims */");
            CompletableFuture<SignalResult> delivery = CompletableFuture.supplyAsync(
                    () -> signals.deliver(claimed.id(), "paid", "{\"amount\": 5}", null).result(), threads);
            RowLocks.awaitLockWait("/* durable: deliver signal */");

            blocker.commit();

            assertThat(park.get()).containsExactly(claimed.id());
            assertThat(delivery.get()).isEqualTo(new SignalResult(claimed.id(), SignalResult.Delivery.DELIVERED,
                    true));
        }
        assertWokenWithTheSignal();
    }

    /** The re-check ignores the awaited signals the step was handed, so re-awaiting parks (pitfall P2). */
    @Test
    void reAwaitingAfterSeeingTheAwaitedSignalParksInsteadOfSpinning() {
        signals.deliver(claimed.id(), "paid", "{}", null);
        // The step saw the signal as awaited (its id is handed back) and decides to wait for another one.
        long seen = (Long) TestDatabase.signals(claimed.id()).get(0).get("id");
        Set<Long> applied = transitions.apply(
                List.of(Transition.await(claimed, "paid", "{}", List.of(seen))), false).applied();

        assertThat(applied).containsExactly(claimed.id());
        assertThat(TestDatabase.row(claimed.id())).containsEntry("status", "awaiting_signal");
    }

    /** A signal that arrived before the await, not yet seen as awaited, wakes the instance at once. */
    @Test
    void aSignalThatArrivedBeforeTheAwaitWakesTheInstanceAtOnce() {
        signals.deliver(claimed.id(), "paid", "{}", null);
        transitions.apply(List.of(Transition.await(claimed, "paid", "{}", List.of())), false);

        assertThat(TestDatabase.row(claimed.id())).containsEntry("status", "runnable").containsEntry("awaits", "paid");
    }

    private void assertWokenWithTheSignal() {
        Map<String, Object> row = TestDatabase.row(claimed.id());
        assertThat(row).containsEntry("status", "runnable").containsEntry("awaits", "paid");
        assertThat(TestDatabase.signals(claimed.id())).singleElement()
                .satisfies(signal -> assertThat(signal).containsEntry("name", "paid"));
        // The woken step is handed the signal as awaited.
        ClaimedStep woken = claims.pick("q", Map.of("parker", List.of(1)), 1, "node:1", Duration.ofMinutes(1))
                .get(0);
        assertThat(woken.awaits()).containsExactly("paid");
        assertThat(woken.inbox()).singleElement().satisfies(signal -> {
            assertThat(signal.name()).isEqualTo("paid");
            assertThat(signal.payloadJson()).isEqualTo("{\"amount\": 5}");
        });
    }
}
