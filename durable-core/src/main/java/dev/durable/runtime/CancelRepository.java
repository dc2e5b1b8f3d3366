package dev.durable.runtime;

import dev.durable.CancelResult;
import dev.durable.InstanceStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of cancelling instances, for the {@link DefaultDurableClient}: the row ends {@code cancelled} and its inbox
 * is cleared, in the caller's transaction (or one of its own, when there is none: the two statements commit
 * together). Cancelling is one more write that ends a claim: it takes the row lock like an outcome, a signal delivery
 * and a deadline do, so whichever comes second sees what the first did (docs/DESIGN.md, "Cancel"). The statements
 * go through {@link StatementPlanning#hot()}: they lock instance rows by key, like a signal delivery.
 */
final class CancelRepository {

    // Locks the addressed rows by id, and by id only (a status filter read on a stale snapshot could miss an outcome
    // committed a moment ago), then ends those still unfinished. The lock waits for an outcome being written and
    // returns the row as the outcome left it. An executing row loses its claim: clearing lease_token fences the
    // running step's outcome (its write matches no row), its heartbeat finds the claim gone and interrupts it, and a
    // retried ambiguous outcome cannot take the row for its own (TransitionRepository, "already written"). The
    // status read under the lock is the one reported.
    static final String CANCEL = """
            /* durable: cancel */
            WITH target AS (
                SELECT id, status
                FROM {schema}.durable_instance
                WHERE id = ANY (:id::bigint[])
                ORDER BY id
                FOR NO KEY UPDATE
            ), cancelled AS (
                UPDATE {schema}.durable_instance d
                SET status = 'cancelled', last_error = :reason,
                    awaits = NULL, awaits_set = NULL, deadline = NULL,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM target t
                WHERE d.id = t.id AND t.status IN ('runnable', 'executing', 'awaiting_signal')
                RETURNING d.id
            )
            SELECT t.id, t.status::text AS status, (c.id IS NOT NULL) AS cancelled
            FROM target t LEFT JOIN cancelled c ON c.id = t.id
            """;

    private final StatementPlanning planning;
    /** Joins the caller's transaction on the engine's DataSource, or begins one for the two statements. */
    private final TransactionTemplate transaction;
    private final String cancelSql;
    private final String clearInboxesSql;

    CancelRepository(DataSource dataSource, StatementPlanning planning) {
        this.planning = planning;
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.cancelSql = planning.qualify(CANCEL);
        this.clearInboxesSql = planning.qualify(TransitionRepository.CLEAR_INBOXES);
    }

    /**
     * Cancels the instances {@code ids} that are unfinished, and clears their inboxes; what became of each, in the
     * order of {@code ids}. Run in a transaction: the caller's or one of its own.
     */
    List<CancelResult> cancel(List<Long> ids, String reason) {
        return transaction.execute(status -> cancelInTransaction(ids, reason));
    }

    private List<CancelResult> cancelInTransaction(List<Long> ids, String reason) {
        Map<Long, CancelResult> found = new HashMap<>();
        List<Long> cancelled = new ArrayList<>();
        planning.hot().sql(cancelSql)
                .param("id", new SqlArrayValue("int8", ids.toArray()))
                .param("reason", reason)
                .query(rs -> {
                    long id = rs.getLong("id");
                    InstanceStatus status = InstanceStatus.fromLabel(rs.getString("status"));
                    boolean now = rs.getBoolean("cancelled");
                    if (now) {
                        cancelled.add(id);
                    }
                    found.put(id, new CancelResult(id, outcome(status, now), status));
                });
        if (!cancelled.isEmpty()) {
            planning.hot().sql(clearInboxesSql).param("id", new SqlArrayValue("int8", cancelled.toArray())).update();
        }
        List<CancelResult> results = new ArrayList<>(ids.size());
        for (long id : ids) {
            @Nullable CancelResult result = found.get(id);
            results.add(result != null ? result
                    : new CancelResult(id, CancelResult.Cancellation.REFUSED_UNKNOWN_INSTANCE, null));
        }
        return results;
    }

    private static CancelResult.Cancellation outcome(InstanceStatus status, boolean cancelledNow) {
        if (cancelledNow) {
            return CancelResult.Cancellation.CANCELLED;
        }
        return status == InstanceStatus.CANCELLED ? CancelResult.Cancellation.ALREADY_CANCELLED
                : CancelResult.Cancellation.REFUSED_TERMINAL_INSTANCE;
    }
}
