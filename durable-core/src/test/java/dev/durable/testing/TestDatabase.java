package dev.durable.testing;

import dev.durable.jdbc.DurableSchema;
import dev.durable.test.postgres.TestPostgres;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.bridge.SLF4JBridgeHandler;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The database every engine test uses: a real PostgreSQL (see {@link TestPostgres}) with durable's schema applied
 * once per JVM through the shipped Liquibase changelog (the schema is dropped first), into a schema that is not {@code public} so the schema name
 * is exercised. Tables are emptied before each test by {@link #clean()}.
 */
public final class TestDatabase {

    /** The schema engine tests run in. */
    public static final String SCHEMA = "durable_it";

    private static boolean migrated;

    static {
        // Liquibase logs through java.util.logging; send it where everything else goes.
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }

    private TestDatabase() {
    }

    public static synchronized DataSource dataSource() {
        DataSource dataSource = TestPostgres.get().dataSource();
        if (!migrated) {
            TestPostgres.get().dropSchema(SCHEMA);
            DurableSchema.named(SCHEMA).migrate(dataSource);
            migrated = true;
        }
        return dataSource;
    }

    public static JdbcTemplate jdbc() {
        return new JdbcTemplate(dataSource());
    }

    /** Empties durable's tables and the tables tests create for their own bookkeeping. */
    public static void clean() {
        jdbc().execute("TRUNCATE " + SCHEMA + ".durable_instance, " + SCHEMA + ".durable_signal, " + SCHEMA
                + ".durable_node, " + SCHEMA + ".durable_node_machine RESTART IDENTITY");
        jdbc().execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".test_effect (id bigserial PRIMARY KEY,"
                + " instance_id bigint, label text, started_at timestamptz, ended_at timestamptz)");
        jdbc().execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".test_counter (name text PRIMARY KEY,"
                + " value int NOT NULL)");
        jdbc().execute("TRUNCATE " + SCHEMA + ".test_effect, " + SCHEMA + ".test_counter RESTART IDENTITY");
    }

    /** The stored row of one instance, every column, as PostgreSQL text where it is not a plain value. */
    public static Map<String, Object> row(long id) {
        return jdbc().queryForMap("""
                SELECT id, machine, machine_version, step, status::text AS status, state::text AS state,
                       result::text AS result, awaits, queue, priority, partition_key, attempt, last_error,
                       lease_owner, lease_token, lease_expires_at, unique_key, unique_guard,
                       eligible_at, (eligible_at - now()) AS eligible_in,
                       extract(epoch FROM (eligible_at - now())) AS eligible_in_seconds
                FROM durable_it.durable_instance WHERE id = ?
                """, id);
    }

    public static String status(long id) {
        return jdbc().queryForObject("SELECT status::text FROM durable_it.durable_instance WHERE id = ?",
                String.class, id);
    }

    /** The signals stored for an instance, by id. */
    public static List<Map<String, Object>> signals(long instanceId) {
        return jdbc().queryForList("SELECT id, name, payload::text AS payload, dedup_key FROM "
                + "durable_it.durable_signal WHERE instance_id = ? ORDER BY id", instanceId);
    }
}
