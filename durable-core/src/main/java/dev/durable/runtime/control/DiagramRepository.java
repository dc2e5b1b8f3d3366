package dev.durable.runtime.control;

import dev.durable.HistoryEntry;
import dev.durable.InstanceStatus;
import dev.durable.TransitionCount;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of a machine's diagram, for the {@link DefaultDurableClient} (docs/DESIGN.md, "Dashboard"): the traffic of
 * its transitions over a window of the history, and its unfinished and failed instances by step. The page reads both
 * on every refresh, so each reads through indexes what it counts: the window's history entries, the machine's
 * unfinished rows. The statements go through {@link StatementPlanning#ordinary()}.
 */
public final class DiagramRepository {

    // A machine's traffic since a time (the dashboard's diagram): its history events by step, event, next step and
    // the status they left, the window's entries through the history's index by time (schema version 17), each
    // joined to its instance by primary key for its machine (the history holds no machine). Run after LOOP_JOINS.
    public static final String TRANSITION_COUNTS = """
            /* durable: transition counts */
            SELECT h.step, h.event, h.next_step,
                   CASE WHEN h.event = 'suspend' THEN 'suspended' ELSE h.status::text END AS status,
                   count(*) AS n
            FROM {schema}.durable_history h
            JOIN {schema}.durable_instance i ON i.id = h.instance_id
            WHERE i.machine = :machine AND h.at >= :since
            GROUP BY 1, 2, 3, 4
            ORDER BY 1, 2, 3, 4
            """;

    // A nested loop is the join that costs least while a window's entries are few beside the instances, but the
    // planner, costing each probe of the primary key as a read from disk, hashes the machine's instances from a scan
    // of the whole table instead once a window holds about 12,000 entries: the last hour of docs/PERFORMANCE.md's
    // 10,000,000 entries took 27 ms as a loop and 360 ms hashed, from one fill of the tables to the next. So
    // TRANSITION_COUNTS runs in a transaction of its own that allows only the loop, and no JIT, whose threshold the same
    // estimates pass. LOCAL: the settings end with the transaction, and hold behind a pooler (as the in-flight
    // report's SET LOCAL jit; NoSessionStateTest refuses a session's SET or set_config).
    public static final String LOOP_JOINS = """
            /* durable: transition counts by loop joins */
            SET LOCAL enable_hashjoin = off;
            SET LOCAL enable_mergejoin = off;
            SET LOCAL jit = off
            """;

    // A machine's unfinished and failed instances by step and status (the dashboard's diagram), from the indexes of
    // those rows as COUNT_LIVE reads them: the runnable, parked and failed ones from durable_instance_step alone,
    // whose key starts with the machine; the executing ones through the lease index; the suspended ones, stored as
    // runnable with a reason, through their own index, counted as suspended and taken off runnable.
    public static final String COUNT_BY_STEP = """
            /* durable: count by step */
            WITH counted AS (
                SELECT step, status::text AS status, count(*) AS n
                FROM {schema}.durable_instance
                WHERE machine = :machine AND status IN ('runnable', 'awaiting_signal', 'failed')
                GROUP BY 1, 2
                UNION ALL
                SELECT step, 'executing', count(*)
                FROM {schema}.durable_instance
                WHERE machine = :machine AND status = 'executing'
                GROUP BY 1
                UNION ALL
                SELECT s.step, r.status, r.sign * s.n
                FROM (SELECT step, count(*) AS n
                      FROM {schema}.durable_instance
                      WHERE machine = :machine AND status = 'runnable' AND suspension IS NOT NULL
                      GROUP BY 1) s
                CROSS JOIN (VALUES ('suspended', 1), ('runnable', -1)) AS r (status, sign)
            )
            SELECT step, status, sum(n) AS n
            FROM counted
            GROUP BY 1, 2
            """;

    private final StatementPlanning planning;
    /** A read-only transaction of its own, whatever the caller's, for the settings of LOOP_JOINS. */
    private final TransactionTemplate ownTransaction;
    private final String transitionCountsSql;
    private final String loopJoinsSql;
    private final String countByStepSql;

    public DiagramRepository(StatementPlanning planning) {
        this.planning = planning;
        this.ownTransaction = new TransactionTemplate(new DataSourceTransactionManager(planning.dataSource()));
        ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        ownTransaction.setReadOnly(true);
        this.transitionCountsSql = planning.qualify(TRANSITION_COUNTS);
        this.loopJoinsSql = planning.qualify(LOOP_JOINS);
        this.countByStepSql = planning.qualify(COUNT_BY_STEP);
    }

    /** The history events of {@code machine}'s instances since {@code since}, by step, event, next step and status. */
    List<TransitionCount> transitionCounts(String machine, Instant since) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(since, "since must not be null");
        return ownTransaction.execute(status -> {
            planning.ordinary().sql(loopJoinsSql).update();
            return planning.ordinary().sql(transitionCountsSql)
                    .param("machine", machine)
                    .param("since", OffsetDateTime.ofInstant(since, ZoneOffset.UTC))
                    .query((rs, i) -> new TransitionCount(rs.getString("step"),
                            HistoryEntry.Event.fromLabel(rs.getString("event")), rs.getString("next_step"),
                            InstanceStatus.fromLabel(rs.getString("status")), rs.getLong("n")))
                    .list();
        });
    }

    /** The unfinished and failed instances of {@code machine} by step and status; none at a step: absent. */
    public Map<String, Map<InstanceStatus, Long>> countByStep(String machine) {
        Objects.requireNonNull(machine, "machine must not be null");
        Map<String, Map<InstanceStatus, Long>> counts = new TreeMap<>();
        planning.ordinary().sql(countByStepSql).param("machine", machine).query(rs -> {
            long n = rs.getLong("n");
            if (n != 0) {
                counts.computeIfAbsent(rs.getString("step"), step -> new EnumMap<>(InstanceStatus.class))
                        .put(InstanceStatus.fromLabel(rs.getString("status")), n);
            }
        });
        return counts;
    }
}
