package dev.durable.runtime.time;

import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.TransitionRepository;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of await deadlines, for {@link AwaitDeadlines}: firing the due ones, and finding when the next falls. (The
 * park that sets a deadline is {@code APPLY_AWAIT} of {@link TransitionRepository}; the pick tells a step whether its
 * deadline passed.) Each statement runs alone and commits on its own, through {@link StatementPlanning#hot()}.
 */
public final class DeadlineRepository {

    // Due parked rows, in deadline order, through the partial deadline index; SKIP LOCKED so that sweeps of several
    // nodes, and a delivery holding a row, do not wait for each other. eligible_at becomes the deadline, so a fired
    // deadline keeps its place in pick order. The deadline itself stays: the pick compares it with now() to tell
    // the step it timed out.
    public static final String FIRE = """
            /* durable: fire deadlines */
            WITH due AS (
                SELECT id FROM {schema}.durable_instance
                WHERE status = 'awaiting_signal' AND deadline IS NOT NULL AND deadline <= now()
                ORDER BY deadline
                LIMIT {limit}
                FOR NO KEY UPDATE SKIP LOCKED
            )
            UPDATE {schema}.durable_instance d
            SET status = 'runnable', eligible_at = d.deadline, updated_at = now()
            FROM due
            WHERE d.id = due.id
            RETURNING d.id, d.queue
            """;

    // How long until the next deadline of a parked row (NULL when there is none): the first entry of the index.
    public static final String UNTIL_NEXT = """
            /* durable: next deadline */
            SELECT (extract(epoch FROM min(deadline) - now()) * 1000)::bigint
            FROM {schema}.durable_instance
            WHERE status = 'awaiting_signal' AND deadline IS NOT NULL
            """;

    private final StatementPlanning planning;
    private final LiteralLimits fireSql;
    private final String untilNextSql;

    public DeadlineRepository(StatementPlanning planning) {
        this.planning = planning;
        this.fireSql = new LiteralLimits(planning.qualify(FIRE));
        this.untilNextSql = planning.qualify(UNTIL_NEXT);
    }

    /** Fires up to {@code limit} due deadlines; returns the instances fired and their queues. */
    public Map<Long, String> fireDue(int limit) {
        Map<Long, String> fired = new HashMap<>();
        planning.hot().sql(fireSql.with(limit))
                .query(rs -> {
                    fired.put(rs.getLong("id"), rs.getString("queue"));
                });
        return fired;
    }

    /** Milliseconds until the next deadline of a parked instance (0 or less if one is due); {@code null} if none. */
    public @Nullable Long millisUntilNext() {
        return planning.hot().sql(untilNextSql).query(Long.class).list().get(0);
    }
}
