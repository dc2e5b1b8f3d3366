package dev.durable.runtime.node;

import dev.durable.runtime.jdbc.StatementPlanning;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The statements an idle node runs, for {@link WorkProbe}: when the next runnable row of each of its queues falls due
 * (whatever its machine: a pick then filters), when the next await deadline passes, and when the next tick of a
 * schedule of its machines comes (docs/DESIGN.md, "Finding work").
 *
 * <p>{@link #PROBE}, every {@code poll-interval}, reads the first entry of four indexes per queue at most: the head of
 * each queue in pick order, the first deadline, the first tick. The head of a queue is its next row unless a row of a
 * higher priority that is not yet due (a retry's back-off, a timer) stands before due rows of a lower priority;
 * {@link #PROBE_EVERY_PRIORITY}, once a second, walks the pick index loosely, from priority to priority, and finds
 * those too. Suspended rows, which wait at {@code 'infinity'} (docs/DESIGN.md, "Suspension"), are never due: both stop
 * before them (a distance to an infinite instant is an error, pitfall P18). Both go through {@link StatementPlanning#hot()}: on an analyzed empty table their generic plans scan the
 * table (a seq scan costs nothing there), which would stay cached as the table grows, so while the statistics call
 * the table small they are planned at every execution; the heads' probe is kept simple because that planning is most
 * of its cost ({@code GenericPlanTest}).
 */
public final class ProbeRepository {

    public static final String PROBE = """
            /* durable: probe */
            SELECT 'queue' AS kind, q.queue AS name,
                   (SELECT (extract(epoch FROM i.eligible_at - now()) * 1000)::bigint
                    FROM {schema}.durable_instance i
                    WHERE i.queue = q.queue AND i.status = 'runnable' AND i.eligible_at < 'infinity'
                    ORDER BY i.priority, i.eligible_at LIMIT 1) AS due_in
            FROM unnest(:queues::text[]) AS q(queue)
            UNION ALL
            SELECT 'deadline', NULL,
                   (SELECT (extract(epoch FROM i.deadline - now()) * 1000)::bigint
                    FROM {schema}.durable_instance i
                    WHERE i.status = 'awaiting_signal' AND i.deadline IS NOT NULL
                    ORDER BY i.deadline LIMIT 1)
            UNION ALL
            SELECT 'schedule', NULL,
                   (SELECT (extract(epoch FROM s.next_fire_at - now()) * 1000)::bigint
                    FROM {schema}.durable_schedule s
                    WHERE NOT s.paused AND s.machine = ANY (:machines::text[])
                    ORDER BY s.next_fire_at LIMIT 1)
            """;

    public static final String PROBE_EVERY_PRIORITY = """
            /* durable: probe every priority */
            WITH RECURSIVE heads AS (
                SELECT q.queue,
                       (SELECT i.priority FROM {schema}.durable_instance i
                        WHERE i.queue = q.queue AND i.status = 'runnable'
                        ORDER BY i.priority LIMIT 1) AS priority
                FROM unnest(:queues::text[]) AS q(queue)
                UNION ALL
                SELECT h.queue,
                       (SELECT i.priority FROM {schema}.durable_instance i
                        WHERE i.queue = h.queue AND i.status = 'runnable' AND i.priority > h.priority
                        ORDER BY i.priority LIMIT 1)
                FROM heads h
                WHERE h.priority IS NOT NULL
            )
            SELECT 'queue' AS kind, h.queue AS name,
                   (extract(epoch FROM min((SELECT i.eligible_at FROM {schema}.durable_instance i
                                            WHERE i.queue = h.queue AND i.status = 'runnable'
                                              AND i.priority = h.priority AND i.eligible_at < 'infinity'
                                            ORDER BY i.eligible_at LIMIT 1)) - now()) * 1000)::bigint AS due_in
            FROM heads h
            WHERE h.priority IS NOT NULL
            GROUP BY h.queue
            """;

    /**
     * What the probe found: milliseconds until something falls due (zero or less: due now), by queue; null when
     * nothing waits.
     */
    public record Found(Map<String, Long> queues, @Nullable Long deadline, @Nullable Long schedule) {

        /** Milliseconds until the next runnable row of {@code queue} falls due; null if none waits. */
        public @Nullable Long queue(String queue) {
            return queues.get(queue);
        }
    }

    private final StatementPlanning planning;
    private final String probeSql;
    private final String everyPrioritySql;

    public ProbeRepository(StatementPlanning planning) {
        this.planning = planning;
        this.probeSql = planning.qualify(PROBE);
        this.everyPrioritySql = planning.qualify(PROBE_EVERY_PRIORITY);
    }

    /** The heads of the queues given, of the await deadlines and of the schedules of {@code machines}. */
    public Found probe(Collection<String> queues, Collection<String> machines) {
        return found(planning.hot().sql(probeSql)
                .param("queues", new SqlArrayValue("text", queues.toArray()))
                .param("machines", new SqlArrayValue("text", machines.toArray()))
                .query(ProbeRepository::row)
                .list());
    }

    /** The next runnable row of each queue given, over all its priorities (no deadline nor schedule). */
    public Found probeEveryPriority(Collection<String> queues) {
        return found(planning.hot().sql(everyPrioritySql)
                .param("queues", new SqlArrayValue("text", queues.toArray()))
                .query(ProbeRepository::row)
                .list());
    }

    private static Row row(ResultSet rs, int n) throws SQLException {
        long dueIn = rs.getLong("due_in");
        Long due = rs.wasNull() ? null : dueIn;
        return new Row(rs.getString("kind"), rs.getString("name"), due);
    }

    private static Found found(List<Row> rows) {
        Map<String, Long> byQueue = new HashMap<>();
        Long deadline = null;
        Long schedule = null;
        for (Row row : rows) {
            switch (row.kind()) {
                case "queue" -> {
                    if (row.dueIn() != null) {
                        byQueue.put(row.name(), row.dueIn());
                    }
                }
                case "deadline" -> deadline = row.dueIn();
                default -> schedule = row.dueIn();
            }
        }
        return new Found(Map.copyOf(byQueue), deadline, schedule);
    }

    private record Row(String kind, @Nullable String name, @Nullable Long dueIn) {
    }
}
