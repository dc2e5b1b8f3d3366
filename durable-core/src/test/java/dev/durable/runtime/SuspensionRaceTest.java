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
 * A suspension is one more write that ends a claim (docs/DESIGN.md, "Suspension"): fenced on the claim's token like
 * every outcome, so a suspension racing a cancel ends cancelled whichever takes the row lock first, and a suspension
 * whose claim was lost writes nothing. Both orders are forced, as in {@code CancelRaceTest}.
 */
class SuspensionRaceTest {

    private static final String REASON = "The stored state of orders v1 would lose [$.reservation]";

    private final DataSource dataSource = TestDatabase.dataSource();
    private final Repositories repositories = Repositories.onTestDatabase();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private long id;
    private ClaimedStep running;

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** An instance whose step was picked: its row is claimed, and its state found lossy. */
    @BeforeEach
    void claimAStep() {
        TestDatabase.clean();
        id = repositories.starts().insert(List.of(new NewInstance("orders", 1, "pay",
                "{\"id\": 1, \"reservation\": \"R-7\"}", "q", (short) 0, null, 0, null,
                "{runnable,executing,awaiting_signal}"))).get(0).id();
        running = pick().get(0);
    }

    private TransitionRepository.Applied suspend(ClaimedStep claimed) {
        return repositories.transitions().apply(List.of(Transition.suspend(claimed, REASON)), false);
    }

    @Test
    void theSuspensionCommitsFirst_theCancelEndsTheSuspendedInstance() {
        assertThat(suspend(running).applied()).containsExactly(id);
        assertThat(pick()).isEmpty();

        assertThat(repositories.cancels().cancel(List.of(id), "customer withdrew").results())
                .containsExactly(new CancelResult(id, CancelResult.Cancellation.CANCELLED, InstanceStatus.SUSPENDED));
        assertCancelled("customer withdrew");
    }

    @Test
    void theCancelCommitsFirst_theSuspensionIsFencedOffAndWritesNothing() {
        repositories.cancels().cancel(List.of(id), "customer withdrew");

        assertThat(suspend(running).applied()).isEmpty();
        assertCancelled("customer withdrew");
        // Not even after an ambiguous commit: the cancel cleared the token, so the row is not taken for its own.
        assertThat(repositories.transitions().apply(List.of(Transition.suspend(running, REASON)), true).applied())
                .isEmpty();
    }

    @Test
    void theSuspensionHoldsTheRowFirst_theCancelWaitsAndEndsTheInstanceAfterIt() throws Exception {
        CompletableFuture<TransitionRepository.Applied> suspension;
        CompletableFuture<List<CancelResult>> cancel;
        try (Connection blocker = RowLocks.lockRow(dataSource, id)) {
            suspension = CompletableFuture.supplyAsync(() -> suspend(running), threads);
            RowLocks.awaitLockWait("/* durable: retry */");
            cancel = CompletableFuture.supplyAsync(
                    () -> repositories.cancels().cancel(List.of(id), "customer withdrew").results(), threads);
            RowLocks.awaitLockWaits("/* durable: ", 2);
            blocker.commit();
        }

        // The suspension was first in the queue for the row: written. The cancel then found the instance suspended.
        assertThat(suspension.get().applied()).containsExactly(id);
        assertThat(cancel.get()).containsExactly(
                new CancelResult(id, CancelResult.Cancellation.CANCELLED, InstanceStatus.SUSPENDED));
        assertCancelled("customer withdrew");
    }

    @Test
    void theCancelHoldsTheRowFirst_theSuspensionWaitsAndIsFencedOff() throws Exception {
        CompletableFuture<TransitionRepository.Applied> suspension;
        try (Connection cancelling = RowLocks.openTransaction(dataSource)) {
            new NamedParameterJdbcTemplate(new SingleConnectionDataSource(cancelling, true)).queryForList(
                    repositories.planning().qualify(CancelRepository.CANCEL), new MapSqlParameterSource()
                            .addValue("id", new SqlArrayValue("int8", id))
                            .addValue("reason", "operator")
                            .addValue("history", true)
                            .addValue("node", "test:node"));
            suspension = CompletableFuture.supplyAsync(() -> suspend(running), threads);
            RowLocks.awaitLockWait("/* durable: retry */");
            cancelling.commit();
        }

        assertThat(suspension.get().applied()).isEmpty();
        assertCancelled("operator");
    }

    /** The claim was reaped and the row picked again: the late suspension of the lost claim changes nothing. */
    @Test
    void aSuspensionWhoseClaimWasLostWritesNothing() {
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET lease_expires_at = now() - interval '1 s'"
                + " WHERE id = ?", id);
        assertThat(repositories.claims().reapExpired(10)).containsOnlyKeys(id);
        ClaimedStep again = pick().get(0);
        String before = wholeRow();

        assertThat(suspend(running).applied()).isEmpty();

        assertThat(wholeRow()).isEqualTo(before);
        assertThat(TestDatabase.jdbc().queryForObject("SELECT suspension FROM durable_it.durable_instance WHERE id = ?",
                String.class, id)).isNull();
        assertThat(TestDatabase.jdbc().queryForList("SELECT event FROM durable_it.durable_history WHERE instance_id = ?"
                + " ORDER BY id", String.class, id)).containsExactly("reap");
        // The claim that holds the row now suspends it.
        assertThat(suspend(again).applied()).containsExactly(id);
    }

    /** Every column of the row, as PostgreSQL's text. */
    private String wholeRow() {
        return TestDatabase.jdbc().queryForObject("SELECT to_jsonb(t)::text FROM durable_it.durable_instance t"
                + " WHERE id = ?", String.class, id);
    }

    /** Cancelled with {@code reason}, its suspension gone, its state as stored, never picked again. */
    private void assertCancelled(String reason) {
        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("status")).hasToString("cancelled");
        assertThat(row.get("last_error")).isEqualTo(reason);
        assertThat(row.get("lease_token")).isNull();
        assertThat(row.get("state")).isEqualTo("{\"id\": 1, \"reservation\": \"R-7\"}");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT suspension FROM durable_it.durable_instance WHERE id = ?",
                String.class, id)).isNull();
        assertThat(pick()).isEmpty();
    }

    private List<ClaimedStep> pick() {
        return repositories.claims().pick("q", Map.of("orders", List.of(1)), 1, "node:1", Duration.ofMinutes(1));
    }
}
