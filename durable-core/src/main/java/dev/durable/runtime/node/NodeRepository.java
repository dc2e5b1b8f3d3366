package dev.durable.runtime.node;

import dev.durable.runtime.StrandedSchedule;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * All SQL of {@code durable_node} and {@code durable_node_machine}: which nodes are alive and which machine
 * versions they run, and the instances and schedules no live node can run, for the {@link NodeRegistry}. None of it
 * is on a step's path: a node registers on each heartbeat and looks for stranded instances and schedules on each
 * reaper run. The statements go through {@link StatementPlanning#ordinary()}.
 */
public final class NodeRepository {

    // Registers a node and its machine versions, or renews a registration: one statement, safe to repeat (the
    // heartbeat does, so a node whose row aged out or was deleted by hand comes back on its next beat).
    static final String REGISTER = """
            /* durable: register node */
            WITH node AS (
                INSERT INTO {schema}.durable_node (id) VALUES (:nodeId)
                ON CONFLICT (id) DO UPDATE SET seen_at = now()
                RETURNING id
            )
            INSERT INTO {schema}.durable_node_machine (node_id, machine, machine_version)
            SELECT node.id, m.machine, m.version
            FROM node, unnest(:machine::text[], :version::int[]) AS m(machine, version)
            ON CONFLICT DO NOTHING
            """;

    static final String FORGET = """
            /* durable: forget node */
            DELETE FROM {schema}.durable_node WHERE id = :nodeId
            """;

    // Nodes unseen for a day died without saying so; their rows only clutter the table.
    static final String FORGET_DEAD = """
            /* durable: forget dead nodes */
            DELETE FROM {schema}.durable_node WHERE seen_at < now() - interval '1 day'
            """;

    // Runnable, due instances of a (machine, version) that no live node registers. The live pairs are a handful of
    // rows, hashed once; the instances are read through the runnable rows only (the partial pick index), so the
    // cost follows the backlog, not the history.
    public static final String STRANDED = """
            /* durable: stranded instances */
            WITH live AS (
                SELECT DISTINCT m.machine, m.machine_version
                FROM {schema}.durable_node_machine m
                JOIN {schema}.durable_node n ON n.id = m.node_id
                WHERE n.seen_at > now() - make_interval(secs => :liveSeconds)
            )
            SELECT i.machine, i.machine_version, count(*) AS waiting, min(i.eligible_at) AS since
            FROM {schema}.durable_instance i
            WHERE i.status = 'runnable' AND i.eligible_at <= now()
              AND NOT EXISTS (SELECT 1 FROM live
                              WHERE live.machine = i.machine AND live.machine_version = i.machine_version)
            GROUP BY i.machine, i.machine_version
            ORDER BY i.machine, i.machine_version
            """;

    // Due, unpaused schedules whose machine no live node registers, in any version. Both sides are small tables.
    public static final String STRANDED_SCHEDULES = """
            /* durable: stranded schedules */
            SELECT s.name, s.machine, s.next_fire_at
            FROM {schema}.durable_schedule s
            WHERE NOT s.paused AND s.next_fire_at <= now()
              AND NOT EXISTS (SELECT 1
                              FROM {schema}.durable_node_machine m
                              JOIN {schema}.durable_node n ON n.id = m.node_id
                              WHERE m.machine = s.machine
                                AND n.seen_at > now() - make_interval(secs => :liveSeconds))
            ORDER BY s.name
            """;

    private final StatementPlanning planning;
    private final String registerSql;
    private final String forgetSql;
    private final String forgetDeadSql;
    private final String strandedSql;
    private final String strandedSchedulesSql;

    public NodeRepository(StatementPlanning planning) {
        this.planning = planning;
        this.registerSql = planning.qualify(REGISTER);
        this.forgetSql = planning.qualify(FORGET);
        this.forgetDeadSql = planning.qualify(FORGET_DEAD);
        this.strandedSql = planning.qualify(STRANDED);
        this.strandedSchedulesSql = planning.qualify(STRANDED_SCHEDULES);
    }

    /** Registers (or renews) a live node running these machine versions. */
    void register(String nodeId, List<MachineVersion> machines) {
        planning.ordinary().sql(registerSql)
                .param("nodeId", nodeId)
                .param("machine", new SqlArrayValue("text", machines.stream().map(MachineVersion::machine).toArray()))
                .param("version", new SqlArrayValue("int4", machines.stream().map(MachineVersion::version).toArray()))
                .update();
    }

    /** Removes a node that stops, and with it its machine versions. */
    void forget(String nodeId) {
        planning.ordinary().sql(forgetSql).param("nodeId", nodeId).update();
    }

    /** Removes the rows of nodes unseen for a day; how many. */
    int forgetDead() {
        return planning.ordinary().sql(forgetDeadSql).update();
    }

    /**
     * The runnable, due instances of each (machine, version) that no node seen within {@code live} registers.
     */
    List<Stranded> stranded(Duration live) {
        return planning.ordinary().sql(strandedSql)
                .param("liveSeconds", live.toMillis() / 1000.0)
                .query((rs, i) -> new Stranded(rs.getString("machine"), rs.getInt("machine_version"),
                        rs.getLong("waiting"), rs.getObject("since", Timestamp.class).toInstant()))
                .list();
    }

    /** The due schedules whose machine no node seen within {@code live} registers. */
    List<StrandedSchedule> strandedSchedules(Duration live) {
        return planning.ordinary().sql(strandedSchedulesSql)
                .param("liveSeconds", live.toMillis() / 1000.0)
                .query((rs, i) -> new StrandedSchedule(rs.getString("name"), rs.getString("machine"),
                        rs.getObject("next_fire_at", Timestamp.class).toInstant()))
                .list();
    }

    /** A machine version a node runs. */
    record MachineVersion(String machine, int version) {
    }

    /** {@code waiting} runnable instances of a machine version no live node runs, due since {@code since}. */
    record Stranded(String machine, int version, long waiting, Instant since) {
    }
}
