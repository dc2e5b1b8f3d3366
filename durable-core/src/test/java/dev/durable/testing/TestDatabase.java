package dev.durable.testing;

import dev.durable.jdbc.DurableSchema;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.bridge.SLF4JBridgeHandler;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The database every engine test uses: the shared {@link dev.durable.test.postgres.TestDatabase} in a schema that
 * is not {@code public} (so the schema name is exercised), built through the shipped Liquibase changelog. Adds the
 * tables engine tests keep their own bookkeeping in, emptied with durable's by {@link #clean()}.
 */
public final class TestDatabase {

    /** The schema engine tests run in. */
    public static final String SCHEMA = "durable_it";

    /** durable's tables in {@link #SCHEMA}. */
    public static final dev.durable.test.postgres.TestDatabase DATABASE = dev.durable.test.postgres.TestDatabase
            .of(SCHEMA, dataSource -> DurableSchema.named(SCHEMA).migrate(dataSource));

    static {
        // Liquibase logs through java.util.logging; send it where everything else goes.
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }

    private TestDatabase() {
    }

    public static DataSource dataSource() {
        return DATABASE.dataSource();
    }

    public static JdbcTemplate jdbc() {
        return DATABASE.jdbc();
    }

    /** Whether this JVM created the tables tests keep their bookkeeping in (after the schema's migration). */
    private static boolean bookkeepingCreated;

    /**
     * Empties durable's tables and the tables tests create for their own bookkeeping, in one statement, and gives them
     * new files: what a test of plans, sizes or statistics starts from.
     */
    public static synchronized void clean() {
        createBookkeeping();
        DATABASE.clean(BOOKKEEPING);
    }

    /**
     * Empties the same tables as {@link #clean()} by deleting their rows, their identities restarted: what an engine
     * test starts from ({@link EngineFixture}), at a tenth of the cost of {@link #clean()}.
     */
    public static synchronized void empty() {
        createBookkeeping();
        DATABASE.empty(BOOKKEEPING);
    }

    private static final List<String> BOOKKEEPING = List.of("test_effect", "test_counter");

    private static void createBookkeeping() {
        if (!bookkeepingCreated) {
            jdbc().execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".test_effect (id bigserial PRIMARY KEY,"
                    + " instance_id bigint, label text, started_at timestamptz, ended_at timestamptz)");
            jdbc().execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".test_counter (name text PRIMARY KEY,"
                    + " value int NOT NULL)");
            bookkeepingCreated = true;
        }
    }

    /** The stored row of one instance, every column, as PostgreSQL text where it is not a plain value. */
    public static Map<String, Object> row(long id) {
        return DATABASE.row(id);
    }

    public static String status(long id) {
        return DATABASE.status(id);
    }

    /** The signals stored for an instance, by id. */
    public static List<Map<String, Object>> signals(long instanceId) {
        return DATABASE.signals(instanceId);
    }
}
