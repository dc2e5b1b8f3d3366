package dev.durable.test.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The shared test database: migrated once per schema and JVM, and emptied between tests even while an engine is
 * still reading its tables. durable-core is out of this module's reach, so its tables are stood in for by tables
 * of the same names and foreign keys.
 */
class TestDatabaseTest {

    private static final String SCHEMA = "durable_test_database";
    private static final AtomicInteger MIGRATIONS = new AtomicInteger();
    private static final TestDatabase DATABASE = TestDatabase.of(SCHEMA, TestDatabaseTest::migrate);

    @BeforeEach
    void cleanDatabase() {
        DATABASE.clean();
        DATABASE.jdbc().execute("DROP TABLE IF EXISTS " + SCHEMA + ".test_own");
    }

    @Test
    void cleanEmptiesDurablesTablesAndStartsTheirIdsAgain() {
        JdbcTemplate jdbc = DATABASE.jdbc();
        long first = insertInstance(jdbc);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_signal (instance_id) VALUES (?)", first);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_node (id) VALUES ('n-1')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_node_machine (node_id) VALUES ('n-1')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_schedule (name) VALUES ('nightly')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history (instance_id) VALUES (?)", first);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history_minute (machine) VALUES ('m')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history_rollup (rolled_until) VALUES (now())");
        assertThat(DATABASE.count()).isEqualTo(1);
        assertThat(DATABASE.status(first)).isEqualTo("runnable");

        DATABASE.clean();

        for (String table : TestDatabase.TABLES) {
            assertThat(jdbc.queryForObject("SELECT count(*) FROM " + DATABASE.table(table), Integer.class))
                    .as(table).isZero();
        }
        assertThat(insertInstance(jdbc)).isEqualTo(1);
    }

    @Test
    void emptyDeletesTheRowsOfDurablesTablesAndOfTheGivenOnesAndStartsTheirIdsAgain() {
        JdbcTemplate jdbc = DATABASE.jdbc();
        jdbc.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".test_own (id int GENERATED ALWAYS AS IDENTITY"
                + " (START WITH 7), label text)");
        long first = insertInstance(jdbc);
        insertInstance(jdbc);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_signal (instance_id) VALUES (?)", first);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_node (id) VALUES ('n-1')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_node_machine (node_id) VALUES ('n-1')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_schedule (name) VALUES ('nightly')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history (instance_id) VALUES (?)", first);
        jdbc.update("INSERT INTO " + SCHEMA + ".test_own (label) VALUES ('a'), ('b')");

        DATABASE.empty(java.util.List.of("test_own"));

        for (String table : TestDatabase.TABLES) {
            assertThat(jdbc.queryForObject("SELECT count(*) FROM " + DATABASE.table(table), Integer.class))
                    .as(table).isZero();
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".test_own", Integer.class)).isZero();
        // A serial column and an identity column start again where they started, as after TRUNCATE RESTART IDENTITY.
        assertThat(insertInstance(jdbc)).isEqualTo(1);
        assertThat(jdbc.queryForObject("INSERT INTO " + SCHEMA + ".durable_signal (instance_id) VALUES (1)"
                + " RETURNING id", Long.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("INSERT INTO " + SCHEMA + ".test_own (label) VALUES ('c') RETURNING id",
                Integer.class)).isEqualTo(7);
    }

    @Test
    void cleanKeepingNodesEmptiesTheInstanceTablesAndLeavesTheNodesRegistered() {
        JdbcTemplate jdbc = DATABASE.jdbc();
        long first = insertInstance(jdbc);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_signal (instance_id) VALUES (?)", first);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_node (id) VALUES ('n-1')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_node_machine (node_id) VALUES ('n-1')");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_schedule (name) VALUES ('nightly')");

        DATABASE.cleanKeepingNodes();

        assertThat(DATABASE.count()).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_signal", Integer.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_schedule", Integer.class))
                .isZero();
        assertThat(jdbc.queryForList("SELECT node_id FROM " + SCHEMA + ".durable_node_machine", String.class))
                .containsExactly("n-1");
        assertThat(insertInstance(jdbc)).isEqualTo(1);
    }

    @Test
    void theSchemaIsMigratedOncePerJvmWhoeverAsksForIt() {
        DATABASE.dataSource();
        TestDatabase again = TestDatabase.of(SCHEMA, dataSource -> {
            throw new AssertionError("migrated twice");
        });
        again.dataSource();

        assertThat(again).isSameAs(DATABASE);
        assertThat(MIGRATIONS.get()).isEqualTo(1);
    }

    @Test
    void aSchemaNameThatIsNotAPlainIdentifierIsRefused() {
        assertThatThrownBy(() -> TestDatabase.of("durable; DROP TABLE x", dataSource -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Not a plain lower-case schema name: 'durable; DROP TABLE x'");
    }

    /**
     * A statement that reads the node tables before the instance table (as the engine's stranded-instances query
     * does) deadlocks with the truncation, which locks them in the engine's write order; the truncation loses and
     * is tried again once the reader is done.
     */
    @Test
    void cleanTriesAgainWhenItLosesADeadlockWithAStatementLockingTheTablesInAnotherOrder() throws Exception {
        insertInstance(DATABASE.jdbc());
        DataSource dataSource = DATABASE.dataSource();
        try (Connection reader = dataSource.getConnection(); Statement statement = reader.createStatement()) {
            reader.setAutoCommit(false);
            statement.execute("SELECT count(*) FROM " + SCHEMA + ".durable_node_machine");

            CompletableFuture<Void> cleaning = CompletableFuture.runAsync(DATABASE::clean);
            awaitTruncateWaitingForALock(dataSource);
            // Now the reader waits for the truncation, which waits for the reader: PostgreSQL aborts the one that
            // waited first, the truncation.
            int instances;
            try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + SCHEMA + ".durable_instance")) {
                rows.next();
                instances = rows.getInt(1);
            }
            reader.commit();

            cleaning.get(30, TimeUnit.SECONDS);
            assertThat(instances).as("the reader went first").isEqualTo(1);
        }
        assertThat(DATABASE.count()).isZero();
    }

    private static void awaitTruncateWaitingForALock(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'TRUNCATE "
                        + SCHEMA + ".%'", Integer.class) == 1);
    }

    private static long insertInstance(JdbcTemplate jdbc) {
        Long id = jdbc.queryForObject("INSERT INTO " + SCHEMA + ".durable_instance (status) VALUES ('runnable')"
                + " RETURNING id", Long.class);
        return id == null ? 0 : id;
    }

    private static void migrate(DataSource dataSource) {
        MIGRATIONS.incrementAndGet();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE SCHEMA " + SCHEMA);
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_instance (id bigserial PRIMARY KEY, status text NOT NULL)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_signal (id bigserial PRIMARY KEY, instance_id bigint"
                + " NOT NULL REFERENCES " + SCHEMA + ".durable_instance (id) ON DELETE CASCADE)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_node (id text PRIMARY KEY)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_node_machine (node_id text NOT NULL REFERENCES " + SCHEMA
                + ".durable_node (id) ON DELETE CASCADE)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_schedule (name text PRIMARY KEY)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_history (id bigserial PRIMARY KEY, instance_id bigint)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_history_minute (machine text)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_history_rollup (rolled_until timestamptz)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_queue_limit (queue text PRIMARY KEY)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".durable_queue_limit_waiter (queue text, node text)");
    }
}
