package dev.durable.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.durable.test.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Installing the schema through a connection pooler in transaction mode (docs/DESIGN.md, "Connection poolers"):
 * {@code migrate} notices that its statements reached PostgreSQL in different sessions and fails before it creates
 * anything, naming the server process that keeps the installation lock; once that session ends, the install over a
 * direct connection goes through. Runs only when the tests' URL goes through such a pooler
 * ({@code scripts/test-behind-pgbouncer}, whose PgBouncer hands consecutive transactions to different sessions).
 */
class SchemaBehindPoolerTest {

    private static final String SCHEMA = "durable_pooled";

    @Test
    void installingThroughATransactionPoolerFailsBeforeCreatingAnythingAndNamesTheSessionKeepingTheLock()
            throws Exception {
        TestPostgres postgres = TestPostgres.get();
        assumeThat(postgres.throughTransactionPooler()).as("the tests' URL goes through a transaction pooler").isTrue();
        JdbcTemplate direct = new JdbcTemplate(postgres.directDataSource());
        postgres.dropSchema(SCHEMA);
        openTwoServerSessions(postgres.dataSource());

        String message = "";
        try {
            DurableSchema.named(SCHEMA).migrate(postgres.dataSource());
        } catch (IllegalStateException e) {
            message = e.getMessage();
        }

        assertThat(message).contains("connection pooler in transaction mode").contains("direct connection");
        assertThat(DurableSchema.named(SCHEMA).isInstalled(postgres.directDataSource())).isFalse();
        assertThat(direct.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = ?", Integer.class, SCHEMA))
                .isZero();
        Matcher process = Pattern.compile("pg_terminate_backend\\((\\d+)\\)").matcher(message);
        assertThat(process.find()).as(message).isTrue();
        int keeper = Integer.parseInt(process.group(1));
        // The release in migrate's finally block went to whichever session was free: if that was the keeper's, the
        // lock is gone already; otherwise the keeper's session holds it, and nothing else does.
        List<Integer> holders = lockHolders(direct);
        assertThat(holders).isSubsetOf(keeper);
        if (!holders.isEmpty()) {
            direct.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, keeper);
            await().atMost(Duration.ofSeconds(10)).until(() -> lockHolders(direct).isEmpty());
        }
        DurableSchema.named(SCHEMA).migrate(postgres.directDataSource());
        assertThat(DurableSchema.named(SCHEMA).isInstalled(postgres.directDataSource())).isTrue();
        postgres.dropSchema(SCHEMA);
    }

    @Test
    void installingOverOneDirectSessionPassesTheCheckAndGivesTheSessionItsSearchPathBack() throws SQLException {
        TestPostgres.get().dropSchema(SCHEMA);
        try (Connection connection = TestPostgres.get().directDataSource().getConnection()) {
            DataSource session = new SingleConnectionDataSource(connection, true);
            String before = new JdbcTemplate(session).queryForObject("SHOW search_path", String.class);

            DurableSchema.named(SCHEMA).migrate(session);
            DurableSchema.named(SCHEMA).migrate(session);

            assertThat(DurableSchema.named(SCHEMA).isInstalled(session)).isTrue();
            assertThat(new JdbcTemplate(session).queryForObject("SHOW search_path", String.class)).isEqualTo(before);
            JdbcTemplate direct = new JdbcTemplate(TestPostgres.get().directDataSource());
            assertThat(lockHolders(direct)).as("the installation lock released").isEmpty();
            // ... as lockHolders would have shown: it finds the lock while a session holds it.
            JdbcTemplate jdbc = new JdbcTemplate(session);
            jdbc.queryForObject("SELECT pg_advisory_lock(hashtextextended(?, 0))", Object.class,
                    "durable-schema:" + SCHEMA);
            assertThat(lockHolders(direct)).containsExactly(jdbc.queryForObject("SELECT pg_backend_pid()",
                    Integer.class));
            jdbc.queryForObject("SELECT pg_advisory_unlock(hashtextextended(?, 0))", Boolean.class,
                    "durable-schema:" + SCHEMA);
        } finally {
            TestPostgres.get().dropSchema(SCHEMA);
        }
    }

    /** The server processes whose session holds this schema's installation lock. */
    private static List<Integer> lockHolders(JdbcTemplate direct) {
        return direct.queryForList("""
                WITH lock AS (SELECT hashtextextended(?, 0) AS key)
                SELECT l.pid FROM pg_locks l, lock
                WHERE l.locktype = 'advisory' AND l.objsubid = 1
                  AND l.classid::bigint = (lock.key >> 32) & 4294967295 AND l.objid::bigint = lock.key & 4294967295
                """, Integer.class, "durable-schema:" + SCHEMA);
    }

    /** Two transactions at once, so the pooler has at least two server sessions to hand statements to. */
    private static void openTwoServerSessions(DataSource pooled) throws SQLException {
        try (Connection first = pooled.getConnection(); Connection second = pooled.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            try (Statement one = first.createStatement(); Statement two = second.createStatement()) {
                one.execute("SELECT 1");
                two.execute("SELECT 1");
            }
            first.commit();
            second.commit();
        }
    }
}
