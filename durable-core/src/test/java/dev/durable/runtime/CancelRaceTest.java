package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.CancelResult;
import dev.durable.InstanceStatus;
import dev.durable.runtime.control.CancelRepository;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * A cancel racing the outcome of the step that runs (docs/DESIGN.md, "Cancel"). Both orders are forced: the cancel
 * commits before the outcome is written, or the outcome holds the row lock (a third connection holds it first, so
 * the outcome queues ahead of the cancel). Either way the instance ends cancelled, the late outcome changes nothing,
 * and no step of it is picked again.
 */
class CancelRaceTest {

    private final DataSource dataSource = TestDatabase.dataSource();
    private final Repositories repositories = Repositories.onTestDatabase();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private long id;
    private ClaimedStep running;

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** An instance whose first step runs: its row is claimed. */
    @BeforeEach
    void claimAStep() {
        TestDatabase.clean();
        id = repositories.starts().insert(List.of(new NewInstance("orders", 1, "reserve", "{}", "q", (short) 0,
                null, 0, null, "{runnable,executing,awaiting_signal}"))).get(0).id();
        running = pick().get(0);
    }

    @Test
    void theCancelCommitsFirst_theStepsOutcomeIsFencedOff() {
        assertThat(repositories.cancels().cancel(List.of(id), "customer withdrew").results())
                .containsExactly(new CancelResult(id, CancelResult.Cancellation.CANCELLED, InstanceStatus.EXECUTING));

        TransitionRepository.Applied applied = repositories.transitions().apply(
                List.of(Transition.next(running, "ship", "{\"late\":true}", List.of())), false);

        assertThat(applied.applied()).isEmpty();
        assertCancelledAsLeft("customer withdrew");
        // A retry of the outcome after an ambiguous commit does not mistake the cancel for its own write.
        assertThat(repositories.transitions().apply(
                List.of(Transition.next(running, "ship", "{\"late\":true}", List.of())), true).applied())
                .isEmpty();
        assertCancelledAsLeft("customer withdrew");
    }

    @Test
    void theOutcomeHoldsTheRowFirst_theCancelWaitsAndEndsTheInstanceAfterIt() throws Exception {
        CompletableFuture<TransitionRepository.Applied> outcome;
        CompletableFuture<List<CancelResult>> cancel;
        try (Connection blocker = RowLocks.lockRow(dataSource, id)) {
            outcome = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(Transition.next(running, "ship", "{\"shipped\":true}", List.of())), false),
                    threads);
            RowLocks.awaitLockWait("/* durable: next */");
            cancel = CompletableFuture.supplyAsync(
                    () -> repositories.cancels().cancel(List.of(id), "customer withdrew").results(), threads);
            RowLocks.awaitLockWaits("/* durable: ", 2);
            blocker.commit();
        }

        // The outcome was first in the queue for the row: written. The cancel then found the row runnable.
        assertThat(outcome.get().applied()).containsExactly(id);
        assertThat(cancel.get()).containsExactly(
                new CancelResult(id, CancelResult.Cancellation.CANCELLED, InstanceStatus.RUNNABLE));
        assertCancelledAsLeft("customer withdrew");
        assertThat(TestDatabase.row(id).get("state").toString()).contains("shipped");
    }

    @Test
    void theCancelHoldsTheRowFirst_theOutcomeWaitsAndIsFencedOff() throws Exception {
        CompletableFuture<TransitionRepository.Applied> outcome;
        try (Connection cancelling = RowLocks.openTransaction(dataSource)) {
            // The cancel's statement runs in an open transaction, so the outcome queues behind its row lock.
            new NamedParameterJdbcTemplate(new SingleConnectionDataSource(cancelling, true)).queryForList(
                    repositories.planning().qualify(CancelRepository.CANCEL), new MapSqlParameterSource()
                            .addValue("id", new SqlArrayValue("int8", id))
                            .addValue("reason", "operator")
                            .addValue("history", true)
                            .addValue("node", "test:node"));
            outcome = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(Transition.next(running, "ship", "{\"late\":true}", List.of())), false),
                    threads);
            RowLocks.awaitLockWait("/* durable: next */");
            cancelling.commit();
        }

        assertThat(outcome.get().applied()).isEmpty();
        assertCancelledAsLeft("operator");
    }

    /** Cancelled with {@code reason}, unclaimed, its state as the claim found it, and never picked again. */
    private void assertCancelledAsLeft(String reason) {
        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("status")).hasToString("cancelled");
        assertThat(row.get("last_error")).isEqualTo(reason);
        assertThat(row.get("lease_token")).isNull();
        assertThat(row.get("lease_owner")).isNull();
        assertThat(row.get("state").toString()).doesNotContain("late");
        assertThat(pick()).isEmpty();
    }

    private List<ClaimedStep> pick() {
        return repositories.claims().pick("q", Map.of("orders", List.of(1)), 1, "node:1", Duration.ofMinutes(1));
    }
}
