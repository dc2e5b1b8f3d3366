package dev.durable.runtime.time;

import dev.durable.MissPolicy;
import dev.durable.StoredSchedule;
import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * All SQL of {@code durable_schedule}: writing, reading, pausing and deleting schedules for the client, and finding
 * and firing due ticks for {@link RecurringSchedules} (docs/DESIGN.md, "Recurring schedules"). Times are the
 * database's ({@code now()}), never a node's clock, so nodes whose clocks differ agree on what is due. The
 * statements go through {@link StatementPlanning#ordinary()} (they are off a step's path, on a small table) and
 * join the caller's Spring transaction, if any.
 */
public final class ScheduleRepository {

    static final String NOW = """
            /* durable: database now */
            SELECT now()
            """;

    // Creates or updates a schedule. A changed cron expression or zone starts over at the caller's next tick; an
    // unchanged one keeps its place, so nodes writing the same declaration at start move nothing. Pausing is kept.
    static final String PUT = """
            /* durable: put schedule */
            INSERT INTO {schema}.durable_schedule AS s
                (name, machine, cron, zone, miss_policy, state, declared, next_fire_at)
            VALUES (:name, :machine, :cron, :zone, :missPolicy, :state::jsonb, :declared, :nextFireAt)
            ON CONFLICT (name) DO UPDATE
            SET machine = excluded.machine, cron = excluded.cron, zone = excluded.zone,
                miss_policy = excluded.miss_policy, state = excluded.state, declared = excluded.declared,
                next_fire_at = CASE WHEN (s.cron, s.zone) IS DISTINCT FROM (excluded.cron, excluded.zone)
                                    THEN excluded.next_fire_at ELSE s.next_fire_at END,
                updated_at = now()
            WHERE (s.machine, s.cron, s.zone, s.miss_policy, s.state, s.declared)
                  IS DISTINCT FROM (excluded.machine, excluded.cron, excluded.zone, excluded.miss_policy,
                                    excluded.state, excluded.declared)
            """;

    // Declared schedules of these machines that their definitions no longer declare.
    static final String DELETE_UNDECLARED = """
            /* durable: delete undeclared schedules */
            DELETE FROM {schema}.durable_schedule
            WHERE declared AND machine = ANY (:machines::text[]) AND NOT (name = ANY (:declared::text[]))
            RETURNING name
            """;

    static final String FIND = """
            /* durable: find schedule */
            SELECT * FROM {schema}.durable_schedule WHERE name = :name
            """;

    static final String LIST = """
            /* durable: list schedules */
            SELECT * FROM {schema}.durable_schedule ORDER BY name
            """;

    static final String PAUSE = """
            /* durable: pause schedule */
            UPDATE {schema}.durable_schedule SET paused = true, updated_at = now()
            WHERE name = :name AND NOT paused
            """;

    // The caller computed the next tick from the row it read; if the row changed since, nothing is resumed.
    static final String RESUME = """
            /* durable: resume schedule */
            UPDATE {schema}.durable_schedule SET paused = false, next_fire_at = :nextFireAt, updated_at = now()
            WHERE name = :name AND paused AND cron = :cron AND zone = :zone
            """;

    static final String DELETE = """
            /* durable: delete schedule */
            DELETE FROM {schema}.durable_schedule WHERE name = :name
            """;

    // Due schedules of the machines this node runs, earliest first, through the partial due index.
    public static final String DUE = """
            /* durable: due schedules */
            SELECT name, machine, cron, zone, miss_policy, state::text AS state, next_fire_at, now() AS now
            FROM {schema}.durable_schedule
            WHERE NOT paused AND next_fire_at <= now() AND machine = ANY (:machines::text[])
            ORDER BY next_fire_at
            LIMIT {limit}
            """;

    // Fires ticks of one schedule in one statement: next_fire_at moves on only if it still holds the tick the
    // caller read (a concurrent fire of another node waits for this one's row lock, then finds the tick moved and
    // changes nothing), and the instances are inserted only if it moved. Each instance's unique key names its tick,
    // held in every status: a tick can never start a second instance, even one whose first has finished.
    public static final String FIRE = """
            /* durable: fire schedule */
            WITH advanced AS (
                UPDATE {schema}.durable_schedule
                SET next_fire_at = :nextFireAt, last_fired_at = coalesce(:lastFiredAt, last_fired_at),
                    updated_at = now()
                WHERE name = :name AND next_fire_at = :expected AND NOT paused
                RETURNING state
            ), started AS (
                INSERT INTO {schema}.durable_instance
                    (machine, machine_version, step, state, queue, unique_key, unique_scope)
                SELECT :machine, :version, :step, advanced.state, :queue, t.key,
                       '{runnable,executing,awaiting_signal,done,failed}'
                FROM advanced, unnest(:keys::text[]) AS t(key)
                ON CONFLICT (unique_guard) WHERE unique_guard IS NOT NULL DO NOTHING
                RETURNING id
            )
            SELECT (SELECT count(*) FROM advanced) AS advanced, (SELECT count(*) FROM started) AS started
            """;

    // How long until the next tick of a schedule this node fires (NULL when there is none).
    public static final String UNTIL_NEXT = """
            /* durable: next schedule tick */
            SELECT (extract(epoch FROM min(next_fire_at) - now()) * 1000)::bigint
            FROM {schema}.durable_schedule
            WHERE NOT paused AND machine = ANY (:machines::text[])
            """;

    private final StatementPlanning planning;
    private final String nowSql;
    private final String putSql;
    private final String deleteUndeclaredSql;
    private final String findSql;
    private final String listSql;
    private final String pauseSql;
    private final String resumeSql;
    private final String deleteSql;
    private final LiteralLimits dueSql;
    private final String fireSql;
    private final String untilNextSql;

    public ScheduleRepository(StatementPlanning planning) {
        this.planning = planning;
        this.nowSql = planning.qualify(NOW);
        this.putSql = planning.qualify(PUT);
        this.deleteUndeclaredSql = planning.qualify(DELETE_UNDECLARED);
        this.findSql = planning.qualify(FIND);
        this.listSql = planning.qualify(LIST);
        this.pauseSql = planning.qualify(PAUSE);
        this.resumeSql = planning.qualify(RESUME);
        this.deleteSql = planning.qualify(DELETE);
        this.dueSql = new LiteralLimits(planning.qualify(DUE));
        this.fireSql = planning.qualify(FIRE);
        this.untilNextSql = planning.qualify(UNTIL_NEXT);
    }

    /** The database's clock. */
    public Instant now() {
        return planning.ordinary().sql(nowSql).query(Timestamp.class).single().toInstant();
    }

    /** Creates or updates a schedule; {@code nextFireAt} is its first tick if it is new or its timing changed. */
    public void put(NewSchedule schedule) {
        planning.ordinary().sql(putSql)
                .param("name", schedule.name())
                .param("machine", schedule.machine())
                .param("cron", schedule.cron())
                .param("zone", schedule.zone())
                .param("missPolicy", label(schedule.missPolicy()))
                .param("state", schedule.stateJson())
                .param("declared", schedule.declared())
                .param("nextFireAt", at(schedule.nextFireAt()))
                .update();
    }

    /** Deletes the declared schedules of {@code machines} not named in {@code declared}; returns their names. */
    List<String> deleteUndeclared(Collection<String> machines, Collection<String> declared) {
        return planning.ordinary().sql(deleteUndeclaredSql)
                .param("machines", new SqlArrayValue("text", machines.toArray()))
                .param("declared", new SqlArrayValue("text", declared.toArray()))
                .query(String.class).list();
    }

    public Optional<StoredSchedule> find(String name) {
        return planning.ordinary().sql(findSql).param("name", name).query(ScheduleRepository::stored).optional();
    }

    public List<StoredSchedule> list() {
        return planning.ordinary().sql(listSql).query(ScheduleRepository::stored).list();
    }

    public boolean pause(String name) {
        return planning.ordinary().sql(pauseSql).param("name", name).update() == 1;
    }

    /** Resumes a paused schedule whose timing is still {@code cron} and {@code zone}, at {@code nextFireAt}. */
    public boolean resume(String name, String cron, String zone, Instant nextFireAt) {
        return planning.ordinary().sql(resumeSql)
                .param("name", name)
                .param("cron", cron)
                .param("zone", zone)
                .param("nextFireAt", at(nextFireAt))
                .update() == 1;
    }

    public boolean delete(String name) {
        return planning.ordinary().sql(deleteSql).param("name", name).update() == 1;
    }

    /** Up to {@code limit} due, unpaused schedules of {@code machines}, earliest first. */
    public List<DueSchedule> due(Collection<String> machines, int limit) {
        return planning.ordinary().sql(dueSql.with(limit))
                .param("machines", new SqlArrayValue("text", machines.toArray()))
                .query((rs, i) -> new DueSchedule(rs.getString("name"), rs.getString("machine"),
                        rs.getString("cron"), rs.getString("zone"), policy(rs.getString("miss_policy")),
                        instant(rs, "next_fire_at"), instant(rs, "now")))
                .list();
    }

    /**
     * Moves the schedule from the tick {@code expected} to {@code nextFireAt} and starts one instance per key, in
     * one statement; nothing happens if the schedule no longer stands at {@code expected} (another node fired it,
     * or it was paused, changed or deleted).
     *
     * @return how many instances were started, or -1 if the schedule had moved
     */
    public int fire(DueSchedule schedule, Instant nextFireAt, @Nullable Instant lastFiredAt, List<String> keys,
            int version, String step, String queue) {
        return planning.ordinary().sql(fireSql)
                .param("name", schedule.name())
                .param("expected", at(schedule.nextFireAt()))
                .param("nextFireAt", at(nextFireAt))
                .param("lastFiredAt", lastFiredAt == null ? null : at(lastFiredAt), Types.TIMESTAMP_WITH_TIMEZONE)
                .param("machine", schedule.machine())
                .param("version", version)
                .param("step", step)
                .param("queue", queue)
                .param("keys", new SqlArrayValue("text", keys.toArray()))
                .query((rs, i) -> rs.getLong("advanced") == 0 ? -1 : rs.getInt("started"))
                .single();
    }

    /** Milliseconds until the next tick of an unpaused schedule of {@code machines} (0 or less: due); null if none. */
    public @Nullable Long millisUntilNext(Collection<String> machines) {
        return planning.ordinary().sql(untilNextSql)
                .param("machines", new SqlArrayValue("text", machines.toArray()))
                .query(Long.class).list().get(0);
    }

    private static StoredSchedule stored(ResultSet rs, int row) throws SQLException {
        return new StoredSchedule(rs.getString("name"), rs.getString("machine"), rs.getString("cron"),
                rs.getString("zone"), policy(rs.getString("miss_policy")), rs.getBoolean("declared"),
                rs.getBoolean("paused"), instant(rs, "next_fire_at"), nullableInstant(rs, "last_fired_at"),
                rs.getString("state"), instant(rs, "created_at"), instant(rs, "updated_at"));
    }

    /** An instant as a timestamptz parameter: with its offset, so no zone of the JVM or the session is involved. */
    private static OffsetDateTime at(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, Timestamp.class).toInstant();
    }

    private static @Nullable Instant nullableInstant(ResultSet rs, String column) throws SQLException {
        Timestamp value = rs.getObject(column, Timestamp.class);
        return value == null ? null : value.toInstant();
    }

    static String label(MissPolicy policy) {
        return policy.name().toLowerCase(Locale.ROOT);
    }

    static MissPolicy policy(String label) {
        return MissPolicy.valueOf(label.toUpperCase(Locale.ROOT));
    }

    /** A schedule to write. */
    public record NewSchedule(String name, String machine, String cron, String zone, MissPolicy missPolicy,
            @Nullable String stateJson, boolean declared, Instant nextFireAt) {
    }

    /** A due schedule as the sweep read it, with the database's clock at the read. */
    public record DueSchedule(String name, String machine, String cron, String zone, MissPolicy missPolicy,
            Instant nextFireAt, Instant now) {
    }
}
