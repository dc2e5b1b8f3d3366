package dev.durable.runtime.control;

import dev.durable.InstanceStatus;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.time.Duration;

/**
 * The SQL of retention, for {@link Retention}: deleting ended instances past their age, oldest first, a batch per
 * statement. One statement per terminal status, each naming its status as a literal, so that the planner matches the
 * partial index {@code durable_instance_ended} whatever the plan cache holds. Each statement commits on its own,
 * through {@link StatementPlanning#ordinary()}.
 */
public final class RetentionRepository {

    // Done rows that ended (were last updated) longer ago than :keepMs, oldest first, through the partial index of
    // ended rows. SKIP LOCKED: the sweeps of several nodes take disjoint batches, and a row a signal delivery holds
    // is left for the next sweep. Only ended rows are ever locked. The batch's ids are collected into an array, so the
    // delete reaches each row by primary key whatever the planner estimates (a join on a CTE was planned as a hash
    // join over the whole table). Their signals go with them (ON DELETE CASCADE, found through the signals'
    // (instance_id, dedup_key) index), their history in the same statement (through the history index; the ids are
    // collected into an array for the same reason). An ended child whose parent is unfinished is kept: the parent may still read
    // it (docs/DESIGN.md, "Children"). Its parent is probed by primary key, as a scalar subquery: NOT EXISTS was
    // planned as a hash of every unfinished row, built from a scan of the table.
    public static final String DELETE_DONE = """
            /* durable: delete expired done */
            WITH deleted AS (
                DELETE FROM {schema}.durable_instance
                WHERE id = ANY (ARRAY(
                    SELECT e.id FROM {schema}.durable_instance e
                    WHERE e.status = 'done' AND e.updated_at < now() - :keepMs * interval '1 millisecond'
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

    // The same for failed rows.
    public static final String DELETE_FAILED = """
            /* durable: delete expired failed */
            WITH deleted AS (
                DELETE FROM {schema}.durable_instance
                WHERE id = ANY (ARRAY(
                    SELECT e.id FROM {schema}.durable_instance e
                    WHERE e.status = 'failed' AND e.updated_at < now() - :keepMs * interval '1 millisecond'
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

    // The same for cancelled rows.
    public static final String DELETE_CANCELLED = """
            /* durable: delete expired cancelled */
            WITH deleted AS (
                DELETE FROM {schema}.durable_instance
                WHERE id = ANY (ARRAY(
                    SELECT e.id FROM {schema}.durable_instance e
                    WHERE e.status = 'cancelled' AND e.updated_at < now() - :keepMs * interval '1 millisecond'
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

    private final StatementPlanning planning;
    private final String deleteDoneSql;
    private final String deleteFailedSql;
    private final String deleteCancelledSql;

    public RetentionRepository(StatementPlanning planning) {
        this.planning = planning;
        this.deleteDoneSql = planning.qualify(DELETE_DONE);
        this.deleteFailedSql = planning.qualify(DELETE_FAILED);
        this.deleteCancelledSql = planning.qualify(DELETE_CANCELLED);
    }

    /** Deletes up to {@code limit} instances of {@code status} that ended longer than {@code keep} ago; how many. */
    public int deleteExpired(InstanceStatus status, Duration keep, int limit) {
        String sql = switch (status) {
            case DONE -> deleteDoneSql;
            case FAILED -> deleteFailedSql;
            case CANCELLED -> deleteCancelledSql;
            default -> throw new IllegalArgumentException("Only ended instances are deleted, not " + status);
        };
        return planning.ordinary().sql(sql).param("keepMs", keep.toMillis()).param("limit", limit)
                .query(Integer.class).single();
    }
}
