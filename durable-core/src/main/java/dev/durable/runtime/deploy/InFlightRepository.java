package dev.durable.runtime.deploy;

import dev.durable.InstanceStatus;
import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of what is in flight (docs/DESIGN.md, "What is in flight"): the groups of unfinished and failed instances by
 * machine, version, step and status, each counted up to a cap and sampled, and the pending signals by group and name.
 * What it costs grows with the number of groups, not of instances: the runnable, parked and failed rows are read
 * through {@code durable_instance_step} (schema version 11) one group at a time, the executing ones (at most the slots
 * of the live nodes) through {@code durable_instance_lease}, and the pending signals up to a cap. Every statement runs
 * in one read-only transaction of its own at REPEATABLE READ (set by its first statement), so they all see one
 * snapshot. The statements go through {@link StatementPlanning#ordinary()}: they are read by an operator or at a
 * node's start, never on a step's path.
 */
public final class InFlightRepository {

    /** The most instances of a group whose states are read. */
    public static final int SAMPLE_SIZE = 50;
    /**
     * Past this many instances, a group's count is a lower bound: counting stops there. Counting is what a report
     * costs (the rest is a few dozen index probes per group): 48 groups counted to 10,000 each took 0.55 s of a
     * report on 1,000,000 rows, so counts stop at 1,000 (docs/PERFORMANCE.md, "What is in flight").
     */
    public static final int COUNT_LIMIT = 1_000;
    /** The most pending signals counted. */
    public static final int SIGNAL_LIMIT = 10_000;

    // The groups of runnable, parked and failed rows, found by a loose index scan of durable_instance_step: each
    // recursion takes the first entry after the previous group's, one index probe per group, however many rows each
    // holds. Each group is counted up to {limit} (COUNT_LIMIT + 1, written into the text) through the same index.
    // The status list is written out in every statement so that the planner matches the partial index.
    public static final String GROUPS = """
            /* durable: in-flight groups */
            WITH RECURSIVE groups AS (
                (SELECT i.machine, i.machine_version, i.step, i.status
                 FROM {schema}.durable_instance i
                 WHERE i.status IN ('runnable', 'awaiting_signal', 'failed')
                 ORDER BY i.machine, i.machine_version, i.step, i.status
                 LIMIT 1)
                UNION ALL
                SELECT next.machine, next.machine_version, next.step, next.status
                FROM groups g
                CROSS JOIN LATERAL (
                    SELECT i.machine, i.machine_version, i.step, i.status
                    FROM {schema}.durable_instance i
                    WHERE i.status IN ('runnable', 'awaiting_signal', 'failed')
                      AND (i.machine, i.machine_version, i.step, i.status)
                          > (g.machine, g.machine_version, g.step, g.status)
                    ORDER BY i.machine, i.machine_version, i.step, i.status
                    LIMIT 1) next
            )
            SELECT g.machine, g.machine_version, g.step, g.status::text AS status, counted.n
            FROM groups g
            CROSS JOIN LATERAL (
                SELECT count(*) AS n
                FROM (SELECT 1
                      FROM {schema}.durable_instance i
                      WHERE i.status IN ('runnable', 'awaiting_signal', 'failed')
                        AND i.machine = g.machine AND i.machine_version = g.machine_version AND i.step = g.step
                        AND i.status = g.status
                      LIMIT {limit}) capped
            ) counted
            """;

    // A group of at most SAMPLE_SIZE rows: all of them, oldest first, through durable_instance_step.
    public static final String SAMPLE = """
            /* durable: in-flight sample */
            SELECT i.state::text AS state
            FROM {schema}.durable_instance i
            WHERE i.status IN ('runnable', 'awaiting_signal', 'failed')
              AND i.machine = :machine AND i.machine_version = :version AND i.step = :step
              AND i.status = CAST(:status AS {schema}.durable_status)
            ORDER BY i.id
            LIMIT {limit}
            """;

    // A larger group: SAMPLE_SIZE rows spread over its ids, the oldest and the newest among them, so that a shape
    // written before a deploy is seen among those written after. {limit} (SAMPLE_SIZE - 1, written into the text) is the
    // number of steps between the group's first and last id; each point is the first row at or after it, one index
    // probe each. Points that reach the same row give it once.
    public static final String SAMPLE_SPREAD = """
            /* durable: in-flight spread sample */
            WITH span AS (
                SELECT min(i.id) AS lo, max(i.id) AS hi
                FROM {schema}.durable_instance i
                WHERE i.status IN ('runnable', 'awaiting_signal', 'failed')
                  AND i.machine = :machine AND i.machine_version = :version AND i.step = :step
                  AND i.status = CAST(:status AS {schema}.durable_status)
            )
            SELECT DISTINCT ON (picked.id) picked.state
            FROM span
            CROSS JOIN generate_series(0, {limit}) point
            CROSS JOIN LATERAL (
                SELECT i.id, i.state::text AS state
                FROM {schema}.durable_instance i
                WHERE i.status IN ('runnable', 'awaiting_signal', 'failed')
                  AND i.machine = :machine AND i.machine_version = :version AND i.step = :step
                  AND i.status = CAST(:status AS {schema}.durable_status)
                  AND i.id >= span.lo + (span.hi - span.lo) * point / {limit}
                ORDER BY i.id
                LIMIT 1) picked
            ORDER BY picked.id
            """;

    // The executing rows by machine, version and step, counted and sampled (the first {limit} of each group by id):
    // they are few, at most the slots of the live nodes and the expired claims not reaped yet, read through
    // durable_instance_lease.
    public static final String EXECUTING = """
            /* durable: in-flight executing */
            SELECT e.machine, e.machine_version, e.step, e.n, e.state
            FROM (SELECT i.machine, i.machine_version, i.step, i.state::text AS state,
                         count(*) OVER (PARTITION BY i.machine, i.machine_version, i.step) AS n,
                         row_number() OVER (PARTITION BY i.machine, i.machine_version, i.step ORDER BY i.id) AS nth
                  FROM {schema}.durable_instance i
                  WHERE i.status = 'executing') e
            WHERE e.nth <= {limit}
            ORDER BY e.machine, e.machine_version, e.step, e.nth
            """;

    // The pending signals by the group of their instance and by name: at most {limit} (SIGNAL_LIMIT + 1) of them,
    // through the inbox index, each joined to its instance by primary key. Only unfinished instances have pending
    // signals (an end clears the inbox), so the cost follows the signals waiting, not the history: the instance is
    // looked up in a LATERAL subquery with a LIMIT, which the planner cannot turn into a hash join over a scan of the
    // whole table, however cheap that looks next to ten thousand probes on a small one.
    public static final String PENDING_SIGNALS = """
            /* durable: in-flight pending signals */
            SELECT i.machine, i.machine_version, i.step, i.status::text AS status, s.name, count(*) AS n
            FROM (SELECT s.instance_id, s.name
                  FROM {schema}.durable_signal s
                  WHERE s.consumed_at IS NULL
                  ORDER BY s.instance_id
                  LIMIT {limit}) s
            CROSS JOIN LATERAL (
                SELECT i.machine, i.machine_version, i.step, i.status
                FROM {schema}.durable_instance i
                WHERE i.id = s.instance_id
                LIMIT 1) i
            GROUP BY i.machine, i.machine_version, i.step, i.status, s.name
            """;

    // For the deploy check (docs/DESIGN.md, "Declared signals"): the payloads of pending signals, at most :sample of
    // each group and name, from the same first {limit} (SIGNAL_LIMIT + 1) pending signals PENDING_SIGNALS counts, read
    // the same way. A payload is cast to text only in the outer query, for the rows the window keeps.
    public static final String PENDING_PAYLOADS = """
            /* durable: in-flight pending payloads */
            SELECT p.machine, p.machine_version, p.step, p.status, p.name, p.payload::text AS payload
            FROM (SELECT i.machine, i.machine_version, i.step, i.status::text AS status, s.name, s.payload,
                         row_number() OVER (PARTITION BY i.machine, i.machine_version, i.step, i.status, s.name
                                            ORDER BY s.instance_id, s.id) AS nth
                  FROM (SELECT s.id, s.instance_id, s.name, s.payload
                        FROM {schema}.durable_signal s
                        WHERE s.consumed_at IS NULL
                        ORDER BY s.instance_id
                        LIMIT {limit}) s
                  CROSS JOIN LATERAL (SELECT i.machine, i.machine_version, i.step, i.status
                                      FROM {schema}.durable_instance i
                                      WHERE i.id = s.instance_id
                                      LIMIT 1) i) p
            WHERE p.nth <= :sample
            """;

    // The first statement of the report's transaction: one snapshot for every statement after it. Transaction state,
    // not the session's, so it holds behind a pooler in transaction mode (docs/DESIGN.md, "Connection poolers").
    static final String SNAPSHOT = """
            /* durable: in-flight snapshot */
            SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY
            """;

    // The statements' estimated costs (a count per group, a probe per sample point) pass jit_above_cost, and compiling
    // them cost more than running them: 18 ms of a 32 ms statement on 1,000,000 rows (docs/PERFORMANCE.md). No JIT in
    // this transaction; LOCAL, so it ends with the transaction and holds behind a pooler.
    static final String NO_JIT = """
            /* durable: in-flight without jit */
            SET LOCAL jit = off
            """;

    static final String NOW = """
            /* durable: in-flight now */
            SELECT now()
            """;

    /** One group: a machine version at a step in a status. */
    record GroupKey(String machine, int version, String step, InstanceStatus status) {
    }

    /**
     * A group as read: its count (exact up to {@link #COUNT_LIMIT}) and the states of its sample, as stored ({@code
     * null} for a state stored as SQL NULL).
     */
    record SampledGroup(GroupKey key, long count, boolean countExact, List<@Nullable String> states) {
    }

    /**
     * Everything read in one snapshot.
     *
     * @param signalsComplete whether every pending signal was counted
     * @param payloads        when read for the deploy check, the payloads of a sample of each group's pending signals
     *                        (at most {@link #SAMPLE_SIZE} of each name), as stored ({@code null} for a signal without
     *                        one); else empty
     */
    record Inventory(Instant takenAt, List<SampledGroup> groups, Map<GroupKey, Map<String, Long>> signals,
            boolean signalsComplete, Map<GroupKey, Map<String, List<@Nullable String>>> payloads) {
    }

    private final StatementPlanning planning;
    private final TransactionTemplate snapshot;
    private final String groupsSql;
    private final String sampleSql;
    private final String sampleSpreadSql;
    private final String executingSql;
    private final String pendingSignalsSql;
    private final String pendingPayloadsSql;
    private final String snapshotSql;
    private final String noJitSql;
    private final String nowSql;

    public InFlightRepository(DataSource dataSource, StatementPlanning planning) {
        this.planning = planning;
        this.snapshot = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        // A report of its own, whatever transaction the caller is in: one snapshot, never the caller's writes.
        snapshot.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.groupsSql = new LiteralLimits(planning.qualify(GROUPS)).with(COUNT_LIMIT + 1);
        this.sampleSql = new LiteralLimits(planning.qualify(SAMPLE)).with(SAMPLE_SIZE);
        this.sampleSpreadSql = new LiteralLimits(planning.qualify(SAMPLE_SPREAD)).with(SAMPLE_SIZE - 1);
        this.executingSql = new LiteralLimits(planning.qualify(EXECUTING)).with(SAMPLE_SIZE);
        this.pendingSignalsSql = new LiteralLimits(planning.qualify(PENDING_SIGNALS)).with(SIGNAL_LIMIT + 1);
        this.pendingPayloadsSql = new LiteralLimits(planning.qualify(PENDING_PAYLOADS)).with(SIGNAL_LIMIT + 1);
        this.snapshotSql = planning.qualify(SNAPSHOT);
        this.noJitSql = planning.qualify(NO_JIT);
        this.nowSql = planning.qualify(NOW);
    }

    /** What is in flight now, in one snapshot; groups in machine, version, step and status order. */
    public Inventory read() {
        return read(false);
    }

    /**
     * What is in flight now, in one snapshot, with the payloads of a sample of the pending signals when
     * {@code withPayloads} (the deploy check's, when a machine declares the payload types of its signals).
     */
    public Inventory read(boolean withPayloads) {
        return Objects.requireNonNull(snapshot.execute(status -> readInSnapshot(withPayloads)));
    }

    private Inventory readInSnapshot(boolean withPayloads) {
        planning.ordinary().sql(snapshotSql).update();
        planning.ordinary().sql(noJitSql).update();
        Instant takenAt = planning.ordinary().sql(nowSql).query(OffsetDateTime.class).single().toInstant();
        Map<GroupKey, SampledGroup> groups = new TreeMap<>(InFlightRepository::compare);
        planning.ordinary().sql(groupsSql).query(rs -> {
            GroupKey key = new GroupKey(rs.getString("machine"), rs.getInt("machine_version"), rs.getString("step"),
                    InstanceStatus.fromLabel(rs.getString("status")));
            long counted = rs.getLong("n");
            groups.put(key, new SampledGroup(key, Math.min(counted, COUNT_LIMIT), counted <= COUNT_LIMIT,
                    List.of()));
        });
        groups.replaceAll((key, group) -> new SampledGroup(key, group.count(), group.countExact(), sample(group)));
        Map<GroupKey, List<@Nullable String>> executing = new LinkedHashMap<>();
        Map<GroupKey, Long> executingCounts = new LinkedHashMap<>();
        planning.ordinary().sql(executingSql).query(rs -> {
            GroupKey key = new GroupKey(rs.getString("machine"), rs.getInt("machine_version"), rs.getString("step"),
                    InstanceStatus.EXECUTING);
            executingCounts.put(key, rs.getLong("n"));
            executing.computeIfAbsent(key, k -> new ArrayList<>()).add(rs.getString("state"));
        });
        executing.forEach((key, states) -> groups.put(key, new SampledGroup(key, executingCounts.get(key), true,
                Collections.unmodifiableList(states))));
        Map<GroupKey, Map<String, Long>> signals = new TreeMap<>(InFlightRepository::compare);
        long[] read = {0};
        planning.ordinary().sql(pendingSignalsSql).query(rs -> {
            GroupKey key = new GroupKey(rs.getString("machine"), rs.getInt("machine_version"), rs.getString("step"),
                    InstanceStatus.fromLabel(rs.getString("status")));
            long n = rs.getLong("n");
            read[0] += n;
            signals.computeIfAbsent(key, k -> new TreeMap<>()).merge(rs.getString("name"), n, Long::sum);
        });
        return new Inventory(takenAt, List.copyOf(groups.values()), signals, read[0] <= SIGNAL_LIMIT,
                withPayloads ? payloads() : Map.of());
    }

    /** The sampled payloads of the pending signals, by group and name. */
    private Map<GroupKey, Map<String, List<@Nullable String>>> payloads() {
        Map<GroupKey, Map<String, List<@Nullable String>>> payloads = new TreeMap<>(InFlightRepository::compare);
        planning.ordinary().sql(pendingPayloadsSql)
                .param("sample", SAMPLE_SIZE)
                .query(rs -> {
                    GroupKey key = new GroupKey(rs.getString("machine"), rs.getInt("machine_version"),
                            rs.getString("step"), InstanceStatus.fromLabel(rs.getString("status")));
                    payloads.computeIfAbsent(key, k -> new TreeMap<>())
                            .computeIfAbsent(rs.getString("name"), name -> new ArrayList<>())
                            .add(rs.getString("payload"));
                });
        return payloads;
    }

    /** The states of a group's sample: all of a small group, a spread over the ids of a larger one. */
    private List<@Nullable String> sample(SampledGroup group) {
        GroupKey key = group.key();
        String sql = group.countExact() && group.count() <= SAMPLE_SIZE ? sampleSql : sampleSpreadSql;
        List<@Nullable String> states = new ArrayList<>();
        planning.ordinary().sql(sql)
                .param("machine", key.machine())
                .param("version", key.version())
                .param("step", key.step())
                .param("status", key.status().label(), Types.VARCHAR)
                .query(rs -> {
                    states.add(rs.getString("state"));
                });
        return Collections.unmodifiableList(states);
    }

    /** Groups in machine, version, step and status order, as the report lists them. */
    static int compare(GroupKey a, GroupKey b) {
        int order = a.machine().compareTo(b.machine());
        if (order == 0) {
            order = Integer.compare(a.version(), b.version());
        }
        if (order == 0) {
            order = a.step().compareTo(b.step());
        }
        return order != 0 ? order : a.status().compareTo(b.status());
    }
}
