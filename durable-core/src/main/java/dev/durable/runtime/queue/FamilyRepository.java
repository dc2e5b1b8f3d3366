package dev.durable.runtime.queue;

import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.step.NewChild;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The SQL an outcome writes into the rows of an instance's family, besides its own row: the children it starts, and,
 * once the instance ends (by its {@code done} or {@code stop}, or by a cancel), the clearing of its inbox and the count
 * of its end at its parent, which may wake the parent (docs/DESIGN.md, "Children"). The {@link TransitionRepository}
 * runs them in its batch, the {@code CancelRepository} after a cancel. All go through
 * {@link StatementPlanning#hot()}, in the caller's transaction, if any.
 */
public final class FamilyRepository {

    // Children of the claims that still hold them (locked by LOCK_CLAIMS in this transaction, so no cancel or reap can
    // come between): one insert for every child of the batch, columns as arrays (docs/DESIGN.md, pitfall P8), in
    // unique-key order (pitfall P5); a child whose unique key is held is not inserted. Each parent counts the
    // children actually inserted. Returns the queues that have new work, each notified to the other nodes unless
    // :wakeChannel is null (docs/DESIGN.md, "Wake-ups").
    public static final String START_CHILDREN = """
            /* durable: start children */
            WITH inserted AS (
                INSERT INTO {schema}.durable_instance
                    (machine, machine_version, step, state, queue, priority, partition_key, eligible_at,
                     unique_key, unique_scope, correlation_key, parent_id, cancel_with_parent, trace_context)
                SELECT r.machine, r.machine_version, r.step, r.state::jsonb, r.queue, r.priority::smallint,
                       r.partition_key, now() + r.delay_ms * interval '1 millisecond',
                       r.unique_key, r.unique_scope::{schema}.durable_status[], r.correlation_key, r.parent_id,
                       r.cancel_with_parent, r.trace
                FROM unnest(:machine::text[], :version::int[], :step::text[], :state::text[], :queue::text[],
                            :priority::int[], :partitionKey::text[], :delayMs::bigint[], :uniqueKey::text[],
                            :uniqueScope::text[], :correlationKey::text[], :parentId::bigint[],
                            :cancelWithParent::boolean[], :trace::text[])
                     WITH ORDINALITY AS r(machine, machine_version, step, state, queue, priority, partition_key,
                                          delay_ms, unique_key, unique_scope, correlation_key, parent_id,
                                          cancel_with_parent, trace, ord)
                WHERE r.parent_id = ANY (:claimed::bigint[])
                ORDER BY r.ord
                ON CONFLICT (unique_guard) WHERE unique_guard IS NOT NULL DO NOTHING
                RETURNING parent_id, queue
            ), counted AS (
                UPDATE {schema}.durable_instance p
                SET children_started = p.children_started + c.n
                FROM (SELECT parent_id, count(*)::int AS n FROM inserted GROUP BY parent_id) c
                WHERE p.id = ANY (:claimed::bigint[]) AND p.id = c.parent_id
            )
            SELECT q.queue,
                   CASE WHEN CAST(:wakeChannel AS text) IS NOT NULL THEN pg_notify(:wakeChannel, 'q:' || q.queue) END
                       AS notified
            FROM (SELECT DISTINCT queue FROM inserted) q
            """;

    // Children have ended (done, failed or cancelled): each parent counts them, under its row lock, and a parent
    // parked on its children wakes when the count reaches what it waits for. The lock serializes the ends of one
    // parent's children, so exactly one of them sees the count reach the mark and wakes the parent; a park that holds
    // the lock first is found parked, one that comes after sees the count (docs/DESIGN.md, "Children"). Parents are
    // locked in id order, like every multi-row statement (pitfall P4). Given one parent id per ended child; a parent
    // deleted by retention is not found. Returns the woken parents' queues, each notified to the other nodes unless
    // :wakeChannel is null (docs/DESIGN.md, "Wake-ups").
    public static final String CHILDREN_ENDED = """
            /* durable: children ended */
            WITH ended AS (
                SELECT parent_id, count(*)::int AS n
                FROM unnest(:parentId::bigint[]) AS e(parent_id)
                GROUP BY parent_id
            ), parent AS (
                SELECT p.id, e.n,
                       coalesce(p.status = 'awaiting_signal' AND p.children_ended + e.n >= p.awaits_children,
                                false) AS wakes
                FROM {schema}.durable_instance p
                JOIN ended e ON p.id = e.parent_id
                WHERE p.id = ANY (:parentId::bigint[])
                ORDER BY p.id
                FOR NO KEY UPDATE OF p
            )
            UPDATE {schema}.durable_instance d
            SET children_ended = d.children_ended + parent.n,
                status = CASE WHEN parent.wakes THEN 'runnable'::{schema}.durable_status ELSE d.status END,
                eligible_at = CASE WHEN parent.wakes THEN now() ELSE d.eligible_at END,
                updated_at = CASE WHEN parent.wakes THEN now() ELSE d.updated_at END
            FROM parent
            WHERE d.id = ANY (:parentId::bigint[]) AND d.id = parent.id
            RETURNING d.queue, parent.wakes,
                      CASE WHEN parent.wakes AND CAST(:wakeChannel AS text) IS NOT NULL
                           THEN pg_notify(:wakeChannel, 'q:' || d.queue) END AS notified
            """;

    // An ended instance's unconsumed signals leave its inbox: those without a dedup key are deleted, those with one
    // stay as tombstones (consumed_at set), so that a redelivery after the end is still recognized as a duplicate.
    // The ids are known, so both writes are driven by them, not by a subquery (docs/DESIGN.md, pitfall P11).
    public static final String CLEAR_INBOXES = """
            /* durable: clear inboxes */
            WITH dropped AS (
                DELETE FROM {schema}.durable_signal
                WHERE instance_id = ANY (:id::bigint[]) AND dedup_key IS NULL
            )
            UPDATE {schema}.durable_signal SET consumed_at = now()
            WHERE instance_id = ANY (:id::bigint[]) AND dedup_key IS NOT NULL AND consumed_at IS NULL
            """;

    // Which of these instances are cancelled: asked only of the outcomes a fence refused, to tell the expected end of
    // a cancel (logged at DEBUG) from a lost lease (a WARN). No lock, no write.
    public static final String CANCELLED_AMONG = """
            /* durable: cancelled among */
            SELECT id FROM {schema}.durable_instance
            WHERE id = ANY (:id::bigint[]) AND status::text = 'cancelled'
            """;

    private final StatementPlanning planning;
    private final String startChildrenSql;
    private final String childrenEndedSql;
    private final String clearInboxesSql;
    private final String cancelledAmongSql;

    public FamilyRepository(StatementPlanning planning) {
        this.planning = planning;
        this.startChildrenSql = planning.qualify(START_CHILDREN);
        this.childrenEndedSql = planning.qualify(CHILDREN_ENDED);
        this.clearInboxesSql = planning.qualify(CLEAR_INBOXES);
        this.cancelledAmongSql = planning.qualify(CANCELLED_AMONG);
    }

    /** Inserts the children of {@code parents}, claims this transaction holds locked; the queues that got work. */
    public List<String> startChildren(List<Transition> parents) {
        List<NewChild> children = new ArrayList<>();
        List<Long> parentOf = new ArrayList<>();
        List<@Nullable String> traceOf = new ArrayList<>(); // a link to the parent's step (docs/DESIGN.md, "Tracing")
        for (Transition parent : parents) {
            for (NewChild child : parent.children()) {
                children.add(child);
                parentOf.add(parent.id());
                traceOf.add(parent.run().traceLink());
            }
        }
        // In unique-key order, so that concurrent inserts sharing keys cannot deadlock (docs/DESIGN.md, pitfall P5).
        Integer[] order = new Integer[children.size()];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        Arrays.sort(order, Comparator.comparing((Integer k) -> children.get(k).row().uniqueKey(),
                Comparator.nullsLast(Comparator.naturalOrder())));
        List<NewChild> sorted = Arrays.stream(order).map(children::get).toList();
        List<Long> parentIds = Arrays.stream(order).map(parentOf::get).toList();
        return planning.hot().sql(startChildrenSql)
                .param("machine", childColumn(sorted, "text", NewInstance::machine))
                .param("version", childColumn(sorted, "int4", NewInstance::version))
                .param("step", childColumn(sorted, "text", NewInstance::step))
                .param("state", childColumn(sorted, "text", NewInstance::stateJson))
                .param("queue", childColumn(sorted, "text", NewInstance::queue))
                .param("priority", childColumn(sorted, "int4", row -> (int) row.priority()))
                .param("partitionKey", childColumn(sorted, "text", NewInstance::partitionKey))
                .param("delayMs", childColumn(sorted, "int8", NewInstance::delayMillis))
                .param("uniqueKey", childColumn(sorted, "text", NewInstance::uniqueKey))
                .param("uniqueScope", childColumn(sorted, "text", NewInstance::uniqueScope))
                .param("correlationKey", childColumn(sorted, "text", NewInstance::correlationKey))
                .param("parentId", new SqlArrayValue("int8", parentIds.toArray()))
                .param("trace", new SqlArrayValue("text", Arrays.stream(order).map(traceOf::get).toArray()))
                .param("cancelWithParent", new SqlArrayValue("bool",
                        sorted.stream().map(NewChild::cancelWithParent).toArray()))
                .param("claimed", new SqlArrayValue("int8", parents.stream().map(Transition::id).toArray()))
                .param("wakeChannel", planning.wakeChannel())
                .query((rs, i) -> rs.getString("queue"))
                .list();
    }

    private static SqlArrayValue childColumn(List<NewChild> children, String type,
            Function<NewInstance, @Nullable Object> value) {
        return new SqlArrayValue(type, children.stream().map(child -> value.apply(child.row())).toArray());
    }

    /**
     * Counts ended children at their parents and wakes the parents whose join is complete, one parent id per ended
     * child; the queues of the woken parents.
     */
    public Set<String> childrenEnded(List<Long> parentIds) {
        Set<String> woken = new HashSet<>();
        planning.hot().sql(childrenEndedSql)
                .param("parentId", new SqlArrayValue("int8", parentIds.toArray()))
                .param("wakeChannel", planning.wakeChannel())
                .query(rs -> {
                    if (rs.getBoolean("wakes")) {
                        woken.add(rs.getString("queue"));
                    }
                });
        return woken;
    }

    /** Clears the inboxes of the ended instances {@code ids}: signals with a dedup key stay as tombstones. */
    public void clearInboxes(List<Long> ids) {
        planning.hot().sql(clearInboxesSql).param("id", new SqlArrayValue("int8", ids.toArray())).update();
    }

    /** Which of the instances {@code ids} are cancelled (their claims' outcomes were refused by a cancel). */
    public Set<Long> cancelledAmong(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(planning.hot().sql(cancelledAmongSql)
                .param("id", new SqlArrayValue("int8", ids.toArray()))
                .query(Long.class)
                .list());
    }
}
