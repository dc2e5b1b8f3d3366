package dev.durable.runtime.control;

import dev.durable.InstanceStatus;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.jdbc.StatementVariants;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The SQL of retention, for {@link Retention}: deleting ended instances past their age, oldest first, a batch per
 * statement. One statement per terminal status, each naming its status as a literal, so that the planner matches the
 * partial index {@code durable_instance_ended} whatever the plan cache holds: one text, rendered for each status. Each
 * statement commits on its own, through {@link StatementPlanning#ordinary()}.
 */
public final class RetentionRepository {

    // Ended rows of one status ({status}: done, failed or cancelled, written into the text as a literal so that the
    // planner matches the partial index durable_instance_ended whatever the plan cache holds) that ended (were last
    // updated) longer ago than :keepMs, oldest first, through the partial index of ended rows. SKIP LOCKED: the sweeps
    // of several nodes take disjoint batches, and a row a signal delivery holds is left for the next sweep. Only ended
    // rows are ever locked. The batch's ids are collected into an array, so the delete reaches each row by primary key
    // whatever the planner estimates (a join on a CTE was planned as a hash join over the whole table). Their signals
    // go with them (ON DELETE CASCADE, found through the signals' (instance_id, dedup_key) index), their history in the
    // same statement (through the history index; the ids are collected into an array for the same reason). An ended
    // child whose parent is unfinished is kept: the parent may still read it (docs/DESIGN.md, "Children"). Its parent
    // is probed by primary key, as a scalar subquery: NOT EXISTS was planned as a hash of every unfinished row, built
    // from a scan of the table.
    public static final String DELETE_EXPIRED = """
            /* durable: delete expired {status} */
            WITH deleted AS (
                DELETE FROM {schema}.durable_instance
                WHERE id = ANY (ARRAY(
                    SELECT e.id FROM {schema}.durable_instance e
                    WHERE e.status = '{status}' AND e.updated_at < now() - :keepMs * interval '1 millisecond'
                      AND (e.parent_id IS NULL OR NOT coalesce((
                          SELECT p.status IN ('runnable', 'executing', 'awaiting_signal')
                          FROM {schema}.durable_instance p WHERE p.id = e.parent_id), false))
                    ORDER BY e.updated_at
                    LIMIT :limit
                    FOR UPDATE SKIP LOCKED))
                RETURNING id
            ), history AS (
                DELETE FROM {schema}.durable_history WHERE instance_id = ANY (ARRAY(SELECT id FROM deleted))
            )
            SELECT count(*) FROM deleted
            """;

    /** {@link #DELETE_EXPIRED}'s three texts, by the status they delete: done, failed, cancelled. */
    public static final Map<InstanceStatus, String> DELETE = byStatus(StatementVariants.render(DELETE_EXPIRED,
            Map.of("done", Map.of("status", "done"), "failed", Map.of("status", "failed"),
                    "cancelled", Map.of("status", "cancelled"))));

    private final StatementPlanning planning;
    private final Map<InstanceStatus, String> deleteSql = new EnumMap<>(InstanceStatus.class);

    public RetentionRepository(StatementPlanning planning) {
        this.planning = planning;
        DELETE.forEach((status, sql) -> deleteSql.put(status, planning.qualify(sql)));
    }

    /** Deletes up to {@code limit} instances of {@code status} that ended longer than {@code keep} ago; how many. */
    public int deleteExpired(InstanceStatus status, Duration keep, int limit) {
        String sql = deleteSql.get(status);
        if (sql == null) {
            throw new IllegalArgumentException("Only ended instances are deleted, not " + status);
        }
        return planning.ordinary().sql(sql).param("keepMs", keep.toMillis()).param("limit", limit)
                .query(Integer.class).single();
    }

    private static Map<InstanceStatus, String> byStatus(Map<String, String> byLabel) {
        Map<InstanceStatus, String> byStatus = new EnumMap<>(InstanceStatus.class);
        byLabel.forEach((label, sql) -> byStatus.put(InstanceStatus.fromLabel(label), sql));
        return Map.copyOf(byStatus);
    }
}
