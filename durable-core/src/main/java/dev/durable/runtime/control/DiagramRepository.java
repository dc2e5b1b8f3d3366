package dev.durable.runtime.control;

import dev.durable.HistoryEntry;
import dev.durable.InstanceStatus;
import dev.durable.TransitionCount;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of a machine's diagram, for the {@link DefaultDurableClient} (docs/DESIGN.md, "Dashboard"): the traffic of
 * its transitions over a window of the history, and its unfinished and failed instances by step; and for the
 * {@link HistoryRollup}, the counts by minute that the traffic of a long window reads. The page reads both on every
 * refresh, so each reads through indexes what it counts: the window's counted minutes and its few other history
 * entries, the machine's unfinished rows. The statements go through {@link StatementPlanning#ordinary()}.
 */
public final class DiagramRepository {

    // A machine's traffic since a time (the dashboard's diagram): its history events by step, event, next step and
    // the status they left. The window's whole minutes before the rollup's mark (ROLLED_UNTIL) are summed from
    // durable_history_minute (schema version 18), through its index by machine and minute; the rest, the part of a
    // minute the window starts in and the minutes not rolled up yet (the last few), are the history's own entries
    // through its index by time (schema version 17), each joined to its instance by primary key for its machine
    // (the history holds no machine). Two ranges of entries, each its own scan of the index: [:since, :headUntil) and
    // [:tailFrom, now]; the counted minutes [:rolledFrom, :rolledUntil). Bound values, not the mark read in a
    // subquery, so the planner estimates each range from its bounds. Run after LOOP_JOINS.
    public static final String TRANSITION_COUNTS = """
            /* durable: transition counts */
            WITH events AS (
                SELECT h.step, h.event, h.next_step, h.status, 1::bigint AS n
                FROM {schema}.durable_history h
                JOIN {schema}.durable_instance i ON i.id = h.instance_id
                WHERE i.machine = :machine AND h.at >= :since AND h.at < :headUntil
                UNION ALL
                SELECT h.step, h.event, h.next_step, h.status, 1
                FROM {schema}.durable_history h
                JOIN {schema}.durable_instance i ON i.id = h.instance_id
                WHERE i.machine = :machine AND h.at >= :tailFrom
                UNION ALL
                SELECT m.step, m.event, m.next_step, m.status, m.n
                FROM {schema}.durable_history_minute m
                WHERE m.machine = :machine AND m.minute >= :rolledFrom AND m.minute < :rolledUntil
            )
            SELECT step, event, next_step,
                   CASE WHEN event = 'suspend' THEN 'suspended' ELSE status::text END AS status,
                   sum(n) AS n
            FROM events
            GROUP BY 1, 2, 3, 4
            ORDER BY 1, 2, 3, 4
            """;

    // How far the history is counted by minute: every minute before it is in durable_history_minute, none after. No
    // row (an emptied table) or minus infinity: nothing yet. Read before TRANSITION_COUNTS, in its own snapshot: the
    // rows of a minute before the mark are never rewritten, so a later mark only means more of the tail is counted.
    public static final String ROLLED_UNTIL = """
            /* durable: history rolled until */
            SELECT rolled_until FROM {schema}.durable_history_rollup WHERE isfinite(rolled_until)
            """;

    // The rollup's one row, written again if the table was emptied; then locked by the node that counts the next
    // minutes, SKIP LOCKED: while another node counts, this one does not wait, it skips its turn.
    public static final String ROLLUP_ROW = """
            /* durable: history rollup row */
            INSERT INTO {schema}.durable_history_rollup (rolled_until) VALUES ('-infinity') ON CONFLICT DO NOTHING
            """;
    public static final String LOCK_ROLLUP = """
            /* durable: lock history rollup */
            SELECT 1 FROM {schema}.durable_history_rollup FOR UPDATE SKIP LOCKED
            """;

    // The minutes to count next, [rolled_from, rolled_until): from the mark (at first, the minute of the oldest entry,
    // through the index by time) up to closed, the end of the last closed minute, but at most the minutes of :entries
    // entries (to the minute of the entry that many past the mark, by the index by time; at least one minute), so that
    // a backlog, a whole history after the upgrade, is counted a bounded transaction at a time. The walk stops at
    // closed: caught up, it reads only the closed minutes' entries, not up to :entries of the open ones (a node's
    // start on a fresh history walked 50,000 entries, 200 ms, to count nothing). A minute closes five
    // minutes after it ends: an entry is stamped with the start of the transaction that writes it (now()) and is seen
    // only once that commits, so an entry committed more than five minutes after its transaction began finds its
    // minute counted already and is left out of the counts (docs/DESIGN.md, "Dashboard").
    public static final String ROLLUP_SPAN = """
            /* durable: history rollup span */
            SELECT f.rolled_from,
                   least(c.closed, greatest(f.rolled_from + interval '1 minute', coalesce(
                       (SELECT date_trunc('minute', h.at, 'UTC') FROM {schema}.durable_history h
                        WHERE h.at >= f.rolled_from AND h.at < c.closed ORDER BY h.at OFFSET :entries LIMIT 1),
                       'infinity'))) AS rolled_until,
                   c.closed
            FROM {schema}.durable_history_rollup r
            CROSS JOIN LATERAL (SELECT date_trunc('minute', now() - interval '5 minutes', 'UTC') AS closed) c
            CROSS JOIN LATERAL (SELECT CASE WHEN isfinite(r.rolled_until) THEN r.rolled_until
                                            ELSE coalesce((SELECT date_trunc('minute', min(h.at), 'UTC')
                                                           FROM {schema}.durable_history h), c.closed)
                                       END AS rolled_from) f
            """;

    // The span's entries counted by the machine of their instance, minute (in UTC), step, event, next step and status,
    // through the history's index by time and the instances' primary key (after LOOP_JOINS, as the diagram's own
    // read), and the mark moved past them, in one statement: a minute is counted once, with the mark.
    public static final String ROLL_UP = """
            /* durable: roll up history */
            WITH counted AS (
                INSERT INTO {schema}.durable_history_minute (machine, minute, step, event, next_step, status, n)
                SELECT i.machine, date_trunc('minute', h.at, 'UTC'), h.step, h.event, h.next_step, h.status, count(*)
                FROM {schema}.durable_history h
                JOIN {schema}.durable_instance i ON i.id = h.instance_id
                WHERE h.at >= :rolledFrom AND h.at < :rolledUntil
                GROUP BY 1, 2, 3, 4, 5, 6
            )
            UPDATE {schema}.durable_history_rollup SET rolled_until = :rolledUntil
            """;

    // The counted minutes older than the longest retention (docs/DESIGN.md, "Retention"), at most :limit of them, so
    // that a retention set on a long-counted history deletes them a bounded transaction at a time: each machine's
    // oldest in the order of the index by machine and minute, the machines found in it by a loose index scan (one probe
    // of the index per machine), their counts deleted by their row ids.
    public static final String TRIM_ROLLUP = """
            /* durable: trim history rollup */
            WITH RECURSIVE machines (machine) AS (
                (SELECT machine FROM {schema}.durable_history_minute ORDER BY machine LIMIT 1)
                UNION ALL
                SELECT (SELECT m.machine FROM {schema}.durable_history_minute m WHERE m.machine > s.machine
                        ORDER BY m.machine LIMIT 1)
                FROM machines s WHERE s.machine IS NOT NULL
            )
            DELETE FROM {schema}.durable_history_minute
            WHERE ctid = ANY (ARRAY(
                SELECT o.ctid FROM machines s
                CROSS JOIN LATERAL (
                    SELECT m.ctid FROM {schema}.durable_history_minute m
                    WHERE m.machine = s.machine AND m.minute < now() - :keepMs * interval '1 millisecond'
                    ORDER BY m.minute
                    LIMIT :limit) o
                WHERE s.machine IS NOT NULL
                LIMIT :limit))
            """;

    // A nested loop is the join that costs least while a window's entries are few beside the instances, but the
    // planner, costing each probe of the primary key as a read from disk, hashes the machine's instances from a scan
    // of the whole table instead once a window holds about 12,000 entries: the last hour of docs/PERFORMANCE.md's
    // 10,000,000 entries took 27 ms as a loop and 360 ms hashed, from one fill of the tables to the next. So
    // TRANSITION_COUNTS runs in a transaction of its own that allows only the loop, and no JIT, whose threshold the same
    // estimates pass; so does ROLL_UP, which joins up to HistoryRollup.ENTRIES_PER_TURN entries. LOCAL: the settings
    // end with the transaction, and hold behind a pooler (as the in-flight report's SET LOCAL jit; NoSessionStateTest
    // refuses a session's SET or set_config).
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
    /** The rollup's transaction of its own: it locks the rollup's row, writes, and commits before the next run. */
    private final TransactionTemplate rollupTransaction;
    private final String transitionCountsSql;
    private final String rolledUntilSql;
    private final String rollupRowSql;
    private final String lockRollupSql;
    private final String rollupSpanSql;
    private final String rollUpSql;
    private final String trimRollupSql;
    private final String loopJoinsSql;
    private final String countByStepSql;

    public DiagramRepository(StatementPlanning planning) {
        this.planning = planning;
        this.ownTransaction = new TransactionTemplate(new DataSourceTransactionManager(planning.dataSource()));
        ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        ownTransaction.setReadOnly(true);
        this.rollupTransaction = new TransactionTemplate(new DataSourceTransactionManager(planning.dataSource()));
        rollupTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.transitionCountsSql = planning.qualify(TRANSITION_COUNTS);
        this.rolledUntilSql = planning.qualify(ROLLED_UNTIL);
        this.rollupRowSql = planning.qualify(ROLLUP_ROW);
        this.lockRollupSql = planning.qualify(LOCK_ROLLUP);
        this.rollupSpanSql = planning.qualify(ROLLUP_SPAN);
        this.rollUpSql = planning.qualify(ROLL_UP);
        this.trimRollupSql = planning.qualify(TRIM_ROLLUP);
        this.loopJoinsSql = planning.qualify(LOOP_JOINS);
        this.countByStepSql = planning.qualify(COUNT_BY_STEP);
    }

    /**
     * The history events of {@code machine}'s instances since {@code since}, by step, event, next step and status: the
     * whole minutes the rollup counted from its counts, the rest from the history.
     */
    List<TransitionCount> transitionCounts(String machine, Instant since) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(since, "since must not be null");
        return ownTransaction.execute(status -> {
            planning.ordinary().sql(loopJoinsSql).update();
            Instant rolled = planning.ordinary().sql(rolledUntilSql).query((rs, i) -> rs.getObject(1,
                    OffsetDateTime.class).toInstant()).optional().orElse(null);
            return planning.ordinary().sql(transitionCountsSql).params(window(machine, since, rolled))
                    .query((rs, i) -> new TransitionCount(rs.getString("step"),
                            HistoryEntry.Event.fromLabel(rs.getString("event")), rs.getString("next_step"),
                            InstanceStatus.fromLabel(rs.getString("status")), rs.getLong("n")))
                    .list();
        });
    }

    /**
     * One turn of the history rollup ({@link HistoryRollup}): unless another node holds the rollup's row, counts the
     * next closed minutes of the history, at most those of {@code entries} entries, and then deletes the counts of
     * minutes older than {@code keep}, if set, at most {@code entries} of them. Returns whether more is left to do at
     * once: a span cut short, or as many counts deleted as allowed.
     */
    boolean rollUp(int entries, @Nullable Duration keep) {
        return Boolean.TRUE.equals(rollupTransaction.execute(status -> {
            planning.ordinary().sql(rollupRowSql).update();
            if (planning.ordinary().sql(lockRollupSql).query(Integer.class).optional().isEmpty()) {
                return false; // another node counts now
            }
            planning.ordinary().sql(loopJoinsSql).update();
            OffsetDateTime[] span = planning.ordinary().sql(rollupSpanSql).param("entries", entries)
                    .query((rs, i) -> new OffsetDateTime[] {rs.getObject("rolled_from", OffsetDateTime.class),
                            rs.getObject("rolled_until", OffsetDateTime.class),
                            rs.getObject("closed", OffsetDateTime.class)}).single();
            boolean more = false;
            if (span[1].isAfter(span[0])) {
                planning.ordinary().sql(rollUpSql).param("rolledFrom", span[0]).param("rolledUntil", span[1]).update();
                more = span[1].isBefore(span[2]);
            }
            if (keep != null) {
                more |= planning.ordinary().sql(trimRollupSql).param("keepMs", keep.toMillis())
                        .param("limit", entries).update() == entries;
            }
            return more;
        }));
    }

    /**
     * TRANSITION_COUNTS' values for {@code machine}'s window from {@code since}, the rollup's mark at
     * {@code rolledUntil} (ROLLED_UNTIL; null: nothing counted): the counted minutes the window holds whole,
     * [rolledFrom, rolledUntil), and the history's entries before and after them; without any, the entries from
     * {@code since} on. Public for the dashboard's scale check, which plans the statement as it runs.
     */
    public static Map<String, Object> window(String machine, Instant since, @Nullable Instant rolledUntil) {
        Instant wholeFrom = since.truncatedTo(ChronoUnit.MINUTES).plus(1, ChronoUnit.MINUTES);
        boolean counted = rolledUntil != null && rolledUntil.isAfter(wholeFrom);
        return Map.of("machine", machine, "since", utc(since),
                "headUntil", utc(counted ? wholeFrom : since),
                "tailFrom", utc(counted ? rolledUntil : since),
                "rolledFrom", utc(wholeFrom),
                "rolledUntil", utc(counted ? rolledUntil : wholeFrom));
    }

    private static OffsetDateTime utc(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
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
