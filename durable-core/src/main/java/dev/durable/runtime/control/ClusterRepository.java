package dev.durable.runtime.control;

import dev.durable.ClusterNode;
import dev.durable.Throughput;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.sql.Array;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of the {@link DefaultDurableClient}'s view of the whole cluster (the dashboard's overview): the nodes the
 * heartbeat keeps in {@code durable_node}, and the transitions every node wrote per minute, from the history. Both
 * are cheap whatever the size of the tables: the node table holds a row per running engine, and the throughput is
 * found through the history's primary key alone (docs/DESIGN.md, "Dashboard"). The statements go through
 * {@link StatementPlanning#ordinary()}.
 */
public final class ClusterRepository {

    // Every registered node with its machine versions, and how long ago its heartbeat last renewed it, by the
    // database's clock (the one that wrote seen_at). A handful of rows: a node deletes its row when it stops, and the
    // registry forgets nodes unseen for a day.
    public static final String NODES = """
            /* durable: nodes */
            SELECT n.id, n.started_at, n.seen_at,
                   CAST(1000 * extract(epoch FROM now() - n.seen_at) AS bigint) AS silent_ms,
                   array_remove(array_agg(m.machine ORDER BY m.machine, m.machine_version), NULL) AS machines,
                   array_remove(array_agg(m.machine_version ORDER BY m.machine, m.machine_version), NULL) AS versions
            FROM {schema}.durable_node n
            LEFT JOIN {schema}.durable_node_machine m ON m.node_id = n.id
            GROUP BY n.id, n.started_at, n.seen_at
            ORDER BY n.id
            """;

    // For each minute since :since, the id of the first history row written at or after its start, found by a
    // binary search over the primary key: the ids are an identity, so they grow with the time of the transaction
    // that wrote them, and the rows of a minute are the ids between its first and the next minute's. Each step of a
    // search is one probe of the primary key (the first row at or after the middle id), about 24 for 10 million
    // rows, so the cost follows the number of minutes, not of rows; a count through the time index reads every
    // entry of the window (1.2 million for 15 busy minutes). hi is the answer once lo meets it: rows below lo are
    // older than the minute, rows from hi on are not.
    public static final String MINUTE_STARTS = """
            /* durable: throughput */
            WITH RECURSIVE ends AS (
                SELECT (SELECT id FROM {schema}.durable_history ORDER BY id LIMIT 1) AS first_id,
                       (SELECT id FROM {schema}.durable_history ORDER BY id DESC LIMIT 1) AS last_id
            ), search (minute, lo, hi) AS (
                SELECT m, e.first_id, e.last_id + 1
                FROM ends e,
                     generate_series(date_trunc('minute', CAST(:since AS timestamptz)), now(), interval '1 minute') m
                WHERE e.first_id IS NOT NULL
                UNION ALL
                SELECT s.minute,
                       CASE WHEN p.id < s.hi AND p.at < s.minute THEN p.id + 1 ELSE s.lo END,
                       CASE WHEN p.id >= s.hi THEN (s.lo + s.hi) / 2 WHEN p.at >= s.minute THEN p.id ELSE s.hi END
                FROM search s
                CROSS JOIN LATERAL (SELECT h.id, h.at FROM {schema}.durable_history h
                                    WHERE h.id >= (s.lo + s.hi) / 2
                                    ORDER BY h.id
                                    LIMIT 1) p
                WHERE s.lo < s.hi
            )
            SELECT s.minute, s.hi AS first_id, e.last_id
            FROM search s, ends e
            WHERE s.lo >= s.hi
            ORDER BY s.minute
            """;

    private final StatementPlanning planning;
    private final String nodesSql;
    private final String minuteStartsSql;

    public ClusterRepository(StatementPlanning planning) {
        this.planning = planning;
        this.nodesSql = planning.qualify(NODES);
        this.minuteStartsSql = planning.qualify(MINUTE_STARTS);
    }

    List<ClusterNode> nodes() {
        return planning.ordinary().sql(nodesSql).query((rs, i) -> {
            Map<String, List<Integer>> machines = new LinkedHashMap<>();
            Array names = rs.getArray("machines");
            Array versions = rs.getArray("versions");
            String[] machineNames = (String[]) names.getArray();
            Integer[] machineVersions = (Integer[]) versions.getArray();
            for (int m = 0; m < machineNames.length; m++) {
                machines.computeIfAbsent(machineNames[m], name -> new ArrayList<>()).add(machineVersions[m]);
            }
            return new ClusterNode(rs.getString("id"), rs.getObject("started_at", OffsetDateTime.class).toInstant(),
                    rs.getObject("seen_at", OffsetDateTime.class).toInstant(),
                    Duration.ofMillis(Math.max(0, rs.getLong("silent_ms"))), machines);
        }).list();
    }

    /**
     * The transitions written in each minute since the one {@code since} falls in, the current one last (not over
     * yet); empty when the history holds no row. A minute's count is the difference of the first ids of it and of
     * the next, so it also counts the ids of transactions that rolled back, and rows retention deleted since.
     */
    List<Throughput> throughput(Instant since) {
        List<Throughput> minutes = new ArrayList<>();
        List<long[]> starts = new ArrayList<>();
        List<Instant> at = new ArrayList<>();
        planning.ordinary().sql(minuteStartsSql)
                .param("since", OffsetDateTime.ofInstant(since, ZoneOffset.UTC))
                .query(rs -> {
                    at.add(rs.getObject("minute", OffsetDateTime.class).toInstant());
                    starts.add(new long[] {rs.getLong("first_id"), rs.getLong("last_id")});
                });
        for (int m = 0; m < starts.size(); m++) {
            long next = m + 1 < starts.size() ? starts.get(m + 1)[0] : starts.get(m)[1] + 1;
            minutes.add(new Throughput(at.get(m), Math.max(0, next - starts.get(m)[0])));
        }
        return minutes;
    }
}
