package dev.durable.runtime.control;

import dev.durable.CancelResult;
import dev.durable.InstanceStatus;
import dev.durable.runtime.jdbc.DatabaseErrors;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.FamilyRepository;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of cancelling instances, for the {@link DefaultDurableClient}: the rows end {@code cancelled} with their
 * unfinished children that are cancelled with their parent (and theirs), their inboxes are cleared and their parents
 * count them as ended, all in the caller's transaction (or one of its own, when there is none: the statements commit
 * together). Cancelling is one more write that ends a claim: it takes the row lock like an outcome, a signal delivery
 * and a deadline do, so whichever comes second sees what the first did (docs/DESIGN.md, "Cancel"). The statements
 * go through {@link StatementPlanning#hot()}: they lock instance rows by key, like a signal delivery.
 */
public final class CancelRepository {

    // Locks the addressed rows by id, and by id only (a status filter read on a stale snapshot could miss an outcome
    // committed a moment ago), then ends those still unfinished. The lock waits for an outcome being written and
    // returns the row as the outcome left it. An executing row loses its claim: clearing lease_token fences the
    // running step's outcome (its write matches no row), its heartbeat finds the claim gone and interrupts it, and a
    // retried ambiguous outcome cannot take the row for its own (TransitionRepository, "already written"). The
    // status read under the lock is the one reported (suspended for a runnable row with a suspension, whose reason the
    // cancel's replaces: docs/DESIGN.md, "Suspension").
    public static final String CANCEL = """
            /* durable: cancel */
            WITH target AS (
                SELECT id, status, parent_id, step, attempt, lease_token, suspension
                FROM {schema}.durable_instance
                WHERE id = ANY (:id::bigint[])
                ORDER BY id
                FOR NO KEY UPDATE
            ), cancelled AS (
                UPDATE {schema}.durable_instance d
                SET status = 'cancelled', last_error = :reason, suspension = NULL,
                    awaits = NULL, awaits_set = NULL, deadline = NULL, awaits_children = NULL,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM target t
                WHERE d.id = ANY (:id::bigint[]) AND d.id = t.id
                  AND t.status IN ('runnable', 'executing', 'awaiting_signal')
                RETURNING d.id
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node, lease_token,
                                                      error)
                SELECT t.id, t.step, 'cancel', 'cancelled', t.attempt, :node,
                       CASE WHEN t.status = 'executing' THEN t.lease_token END, :reason
                FROM target t JOIN cancelled c ON c.id = t.id
                WHERE CAST(:history AS boolean)
            )
            SELECT t.id,
                   CASE WHEN t.suspension IS NOT NULL AND t.status = 'runnable' THEN 'suspended'
                        ELSE t.status::text END AS status,
                   (c.id IS NOT NULL) AS cancelled, t.parent_id
            FROM target t LEFT JOIN cancelled c ON c.id = t.id
            """;

    // The cascade, one generation per statement: the unfinished children of rows this transaction just cancelled
    // that are cancelled with their parent, found through the parent index and locked in id order. It runs after the
    // parents are cancelled and locked, with a fresh snapshot, so it also finds children that an outcome committed
    // while the parent's cancel waited for its lock; no outcome can start more of them after (it would need the
    // parent's lock, and then find it cancelled). A child that ended while this statement waited for its lock is
    // re-read under the lock and left as it ended.
    public static final String CANCEL_CHILDREN = """
            /* durable: cancel children */
            WITH target AS (
                SELECT id, status, parent_id, step, attempt, lease_token, suspension
                FROM {schema}.durable_instance
                WHERE parent_id = ANY (:parentId::bigint[]) AND cancel_with_parent
                  AND status IN ('runnable', 'executing', 'awaiting_signal')
                ORDER BY id
                FOR NO KEY UPDATE
            ), cancelled AS (
                UPDATE {schema}.durable_instance d
                SET status = 'cancelled', last_error = :reason, suspension = NULL,
                    awaits = NULL, awaits_set = NULL, deadline = NULL, awaits_children = NULL,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM target t
                WHERE d.id = ANY (ARRAY(SELECT id FROM target)) AND d.id = t.id
                RETURNING d.id
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node, lease_token,
                                                      error)
                SELECT t.id, t.step, 'cancel', 'cancelled', t.attempt, :node,
                       CASE WHEN t.status = 'executing' THEN t.lease_token END, :reason
                FROM target t JOIN cancelled c ON c.id = t.id
                WHERE CAST(:history AS boolean)
            )
            SELECT t.id,
                   CASE WHEN t.suspension IS NOT NULL AND t.status = 'runnable' THEN 'suspended'
                        ELSE t.status::text END AS status,
                   (c.id IS NOT NULL) AS cancelled, t.parent_id
            FROM target t LEFT JOIN cancelled c ON c.id = t.id
            """;

    // The instances a cancel ended while executing, each its own notification: the node holding the claim drops or
    // interrupts it at once (docs/DESIGN.md, "Wake-ups"). Sent in the cancel's transaction, after its statements.
    public static final String NOTIFY_CANCELLED = """
            /* durable: notify cancelled */
            SELECT count(pg_notify(:wakeChannel, 'c:' || c.id)) FROM unnest(:id::bigint[]) AS c(id)
            """;

    /** How often a cancel in a transaction of its own is tried again after a deadlock with a child's end. */
    private static final int DEADLOCK_ATTEMPTS = 3;

    private final StatementPlanning planning;
    private final History history;
    /** Joins the caller's transaction on the engine's DataSource, or begins one for the statements. */
    private final TransactionTemplate transaction;
    private final String cancelSql;
    private final String cancelChildrenSql;
    private final String notifyCancelledSql;
    private final FamilyRepository family;

    public CancelRepository(DataSource dataSource, StatementPlanning planning, History history) {
        this.planning = planning;
        this.history = history;
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.cancelSql = planning.qualify(CANCEL);
        this.cancelChildrenSql = planning.qualify(CANCEL_CHILDREN);
        this.notifyCancelledSql = planning.qualify(NOTIFY_CANCELLED);
        this.family = new FamilyRepository(planning);
    }

    /**
     * What a cancel did.
     *
     * @param results   per addressed id, in the order given
     * @param executing the instances this cancel ended while they were executing, cascaded children included: their
     *                  running steps are to be interrupted
     * @param woken     the queues of parents woken because their children ended
     */
    public record Cancellation(List<CancelResult> results, Set<Long> executing, Set<String> woken) {
    }

    /**
     * Cancels the instances {@code ids} that are unfinished, with their children that are cancelled with them, and
     * clears their inboxes. Run in a transaction: the caller's, or one of its own, which is tried again after a
     * deadlock (a parent's cascade locks parent then children, a child's end child then parent).
     */
    public Cancellation cancel(List<Long> ids, String reason) {
        boolean ownTransaction = !TransactionSynchronizationManager.isActualTransactionActive();
        for (int attempt = 1; ; attempt++) {
            try {
                return Objects.requireNonNull(transaction.execute(status -> cancelInTransaction(ids, reason)));
            } catch (RuntimeException e) {
                if (!ownTransaction || attempt >= DEADLOCK_ATTEMPTS || !DatabaseErrors.isDeadlock(e)) {
                    throw e;
                }
            }
        }
    }

    private Cancellation cancelInTransaction(List<Long> ids, String reason) {
        Map<Long, CancelResult> found = new HashMap<>();
        Set<Long> executing = new HashSet<>();
        List<Long> endedParents = new ArrayList<>();
        List<Long> cancelled = cancelRows(planning.hot().sql(cancelSql)
                .param("id", new SqlArrayValue("int8", ids.toArray())), reason, found, executing, endedParents);
        List<Long> allCancelled = new ArrayList<>(cancelled);
        while (!cancelled.isEmpty()) {
            cancelled = cancelRows(planning.hot().sql(cancelChildrenSql)
                    .param("parentId", new SqlArrayValue("int8", cancelled.toArray())), reason, new HashMap<>(),
                    executing, endedParents);
            allCancelled.addAll(cancelled);
        }
        if (!allCancelled.isEmpty()) {
            family.clearInboxes(allCancelled);
        }
        Set<String> woken = endedParents.isEmpty() ? Set.of()
                : family.childrenEnded(endedParents);
        // The node holding a claim of an instance cancelled while executing drops or interrupts it at once
        // (docs/DESIGN.md, "Wake-ups"); without LISTEN it learns of it by its wait-check or heartbeat.
        String channel = planning.wakeChannel();
        if (channel != null && !executing.isEmpty()) {
            planning.ordinary().sql(notifyCancelledSql).param("wakeChannel", channel)
                    .param("id", new SqlArrayValue("int8", executing.toArray())).query(Long.class).single();
        }
        List<CancelResult> results = new ArrayList<>(ids.size());
        for (long id : ids) {
            @Nullable CancelResult result = found.get(id);
            results.add(result != null ? result
                    : new CancelResult(id, CancelResult.Cancellation.REFUSED_UNKNOWN_INSTANCE, null));
        }
        return new Cancellation(results, executing, woken);
    }

    /**
     * Runs one cancelling statement; records what became of each row it locked, the executing ones it cancelled, and
     * the parent of each row it cancelled (one entry per child). Returns the ids it cancelled.
     */
    private List<Long> cancelRows(JdbcClient.StatementSpec statement, String reason,
            Map<Long, CancelResult> found, Set<Long> executing, List<Long> endedParents) {
        List<Long> cancelled = new ArrayList<>();
        statement.param("reason", reason).param("history", history.recorded()).param("node", history.node())
                .query(rs -> {
                    long id = rs.getLong("id");
                    InstanceStatus status = InstanceStatus.fromLabel(rs.getString("status"));
                    boolean now = rs.getBoolean("cancelled");
                    long parent = rs.getLong("parent_id");
                    boolean hasParent = !rs.wasNull();
                    if (now) {
                        cancelled.add(id);
                        if (status == InstanceStatus.EXECUTING) {
                            executing.add(id);
                        }
                        if (hasParent) {
                            endedParents.add(parent);
                        }
                    }
                    found.put(id, new CancelResult(id, outcome(status, now), status));
                });
        return cancelled;
    }

    private static CancelResult.Cancellation outcome(InstanceStatus status, boolean cancelledNow) {
        if (cancelledNow) {
            return CancelResult.Cancellation.CANCELLED;
        }
        return status == InstanceStatus.CANCELLED ? CancelResult.Cancellation.ALREADY_CANCELLED
                : CancelResult.Cancellation.REFUSED_TERMINAL_INSTANCE;
    }
}
