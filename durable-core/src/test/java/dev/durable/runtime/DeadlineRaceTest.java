package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.SignalResult;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.DefaultStepContext;
import dev.durable.runtime.step.InboxSignal;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.SignalRow;
import dev.durable.runtime.step.Transition;
import dev.durable.runtime.time.DeadlineRepository;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A signal arriving at an await's deadline (docs/DESIGN.md, "Timers and deadlines"): the deadline sweep and the
 * delivery race for the row. Both orders are forced with a third connection holding the row lock, as in
 * {@link NoLostWakeUpTest}. Whichever order, exactly one of the two decides what the re-run step sees — the signal,
 * or a time-out — and the signal is never lost.
 */
class DeadlineRaceTest {

    private static final String SCHEMA = TestDatabase.SCHEMA;

    private final DataSource dataSource = TestDatabase.dataSource();
    private final Repositories repositories = Repositories.onTestDatabase();
    private final ClaimRepository claims = repositories.claims();
    private final TransitionRepository transitions = repositories.transitions();
    private final SignalRepository signals = repositories.signals();
    private final DeadlineRepository deadlines = repositories.deadlines();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private long id;

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** An instance parked on "paid" whose deadline is already due (the sweep has not run yet). */
    @BeforeEach
    void parkWithADueDeadline() {
        TestDatabase.clean();
        id = repositories.starts().insert(List.of(new NewInstance("parker", 1, "pay", "{}", "q", (short) 0,
                null, 0, null, "{runnable,executing,awaiting_signal}"))).get(0).id();
        ClaimedStep claimed = pick();
        transitions.apply(List.of(Transition.await(claimed, List.of("paid"), 0L, "{}", List.of())), false);
        // A deadline of zero is due at once, so the park itself makes the row runnable; put it back to parked with
        // the deadline in the past, as a park whose deadline has since passed leaves it.
        TestDatabase.jdbc().update("UPDATE " + SCHEMA + ".durable_instance SET status = 'awaiting_signal',"
                + " deadline = now() - interval '1 second' WHERE id = ?", id);
    }

    @Test
    void deliveryHoldsTheRowAtTheDeadline_theSweepSkipsItAndTheStepSeesTheSignal() throws Exception {
        try (Connection blocker = RowLocks.lockRow(dataSource, id)) {
            CompletableFuture<SignalResult> delivery = CompletableFuture.supplyAsync(
                    () -> signals.deliver(id, "paid", "{\"cents\": 5}", "evt-1").result(), threads);
            RowLocks.awaitLockWait("/* durable: deliver signal */");
            // The delivery is queued first; the sweep, which skips locked rows, fires nothing.
            assertThat(deadlines.fireDue(100)).isEmpty();

            blocker.commit();
            assertThat(delivery.get()).isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, true));
        }
        // The delivery woke it; a later sweep finds nothing parked.
        assertThat(deadlines.fireDue(100)).isEmpty();

        ClaimedStep woken = pick();
        assertThat(stepSees(woken)).isEqualTo("signal paid");
    }

    @Test
    void theSweepHoldsTheRowAtTheDeadline_theDeliveryStoresTheSignalAndTheStepSeesIt() throws Exception {
        try (Connection sweep = RowLocks.openTransaction(dataSource)) {
            assertThat(fireIn(sweep)).containsExactly(id);
            CompletableFuture<SignalResult> delivery = CompletableFuture.supplyAsync(
                    () -> signals.deliver(id, "paid", "{\"cents\": 5}", "evt-1").result(), threads);
            RowLocks.awaitLockWait("/* durable: deliver signal */");

            sweep.commit();
            // The delivery found the row runnable: stored, nothing to wake.
            assertThat(delivery.get()).isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, false));
        }
        // The signal was in before the pick: the step sees it and did not time out.
        assertThat(stepSees(pick())).isEqualTo("signal paid");
    }

    @Test
    void theDeadlineFiresAndTheStepIsPickedBeforeTheSignal_itTimesOutAndTheSignalStaysInTheInbox() {
        assertThat(deadlines.fireDue(100)).containsOnlyKeys(id);
        ClaimedStep timedOut = pick();

        // The signal arrives while the timed-out step runs: stored, nothing to wake.
        assertThat(signals.deliver(id, "paid", "{\"cents\": 5}", "evt-1").result())
                .isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, false));
        assertThat(stepSees(timedOut)).isEqualTo("timed out");

        // The timed-out step moves on (its next consumes only the awaited signals it was handed: none); the signal
        // is still there for the next step.
        transitions.apply(List.of(Transition.next(timedOut, "cancel", null, List.of())), false);
        assertThat(TestDatabase.jdbc().queryForList("SELECT name FROM " + SCHEMA + ".durable_signal"
                + " WHERE instance_id = ? AND consumed_at IS NULL", String.class, id)).containsExactly("paid");
        ClaimedStep next = pick();
        assertThat(next.step()).isEqualTo("cancel");
        assertThat(next.inbox()).extracting(SignalRow::name).containsExactly("paid");
    }

    /** What the step of {@code claimed} is told: the awaited signal, or that it timed out. */
    private String stepSees(ClaimedStep claimed) {
        DefaultStepContext context = new DefaultStepContext(claimed, new dev.durable.Inbox(
                claimed.inbox().stream().filter(signal -> claimed.awaits(signal.name()))
                        .<dev.durable.Signal>map(signal -> new InboxSignal(signal, new dev.durable.json.JacksonJsonCodec())).toList(),
                List.of()), parentId -> List.of());
        if (context.timedOut()) {
            assertThat(context.awaited()).isEmpty();
            return "timed out";
        }
        assertThat(claimed.deadlinePassed()).as("the deadline has passed either way").isTrue();
        return "signal " + context.awaited().get(0).name();
    }

    private ClaimedStep pick() {
        List<ClaimedStep> picked = claims.pick("q", Map.of("parker", List.of(1)), 1, "node:1",
                Duration.ofMinutes(1));
        assertThat(picked).hasSize(1);
        return picked.get(0);
    }

    /** Runs the sweep's statement in {@code connection}'s open transaction, so the test decides when it commits. */
    private List<Long> fireIn(Connection connection) throws Exception {
        List<Long> fired = new ArrayList<>();
        String sql = repositories.planning().qualify(DeadlineRepository.FIRE).replace("{limit}", "100");
        try (PreparedStatement statement = connection.prepareStatement(sql); ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                fired.add(rows.getLong("id"));
            }
        }
        return fired;
    }
}
