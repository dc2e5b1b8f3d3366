package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A table that grows from empty faster than its statistics follow (a fresh deployment hit by a burst before
 * autovacuum's next analyze, or a server with autovacuum off). PostgreSQL caches a generic plan for a statement the
 * driver prepares on the server, and keeps it until the table's statistics change; a plan made for an empty table
 * joins the claimed rows back to the table by scanning it in a nested loop. Picks on a table that had since grown
 * to 100,000 rows took seconds each. While the statistics say the table is small, the hot statements are planned
 * at every execution instead; once they describe a sizeable table, plans made from them are safe to cache again.
 */
class StalePlanTest {

    private static final int ROWS = 100_000;

    /** A pool of its own: the statements prepared on its connection stay out of other tests' way, and go with it. */
    private HikariDataSource pool;
    private Connection connection;
    private StatementPlanning planning;
    private ClaimRepository claims;

    @BeforeEach
    void emptyTableWithFreshStatistics() throws Exception {
        TestDatabase.clean();
        TestDatabase.jdbc().execute("VACUUM ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");
        TestDatabase.jdbc().execute("VACUUM ANALYZE " + TestDatabase.SCHEMA + ".durable_signal");
        // One connection, so that every pick below runs on the session that planned the earlier ones.
        TestDatabase.dataSource(); // the schema, migrated
        pool = TestPostgres.get().newDataSource("durable-stale-plan", 1);
        connection = pool.getConnection();
        planning = new StatementPlanning(new SingleConnectionDataSource(connection, true),
                DurableSchema.named(TestDatabase.SCHEMA));
        claims = new ClaimRepository(planning, History.off());
    }

    @AfterEach
    void release() throws Exception {
        connection.close();
        pool.close();
        TestDatabase.clean();
    }

    @Test
    void aPickPlannedOnAnEmptyTableStaysFastAfterTheTableGrows() {
        // Enough executions on one connection for the driver to prepare the statement on the server (5th) and for
        // PostgreSQL to settle on a generic plan (after 5 custom ones).
        for (int i = 0; i < 20; i++) {
            assertThat(pick(50)).isEmpty();
        }
        assertThat(pickPreparedOnTheServer()).as("nothing cached while the statistics say the table is small")
                .isFalse();
        insertRunnableRows(ROWS);

        long start = System.nanoTime();
        List<ClaimedStep> picked = pick(50);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(picked).hasSize(50);
        // Planned for the grown table it takes milliseconds; the empty table's plan took about 4 s here.
        assertThat(took).isLessThan(Duration.ofMillis(500));
    }

    @Test
    void onceTheStatisticsDescribeASizeableTableThePickIsPreparedOnTheServerAgain() {
        insertRunnableRows(2 * StatementPlanning.SMALL_TABLE_ROWS);
        TestDatabase.jdbc().execute("ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");

        planning.refresh();
        for (int i = 0; i < 6; i++) {
            assertThat(pick(1)).hasSize(1);
        }

        assertThat(pickPreparedOnTheServer()).isTrue();
    }

    /**
     * The other way round: a table that was large (its pick prepared on the server, a plan cached) and is emptied
     * (retention, a purge) is planned at every execution again, and the connection's prepared pick is not what runs
     * then: the driver binds to a statement it prepared for the same text, whatever the statement's prepare
     * threshold, and PostgreSQL re-plans that one from the emptied table's statistics. Found by the benchmark's (f)
     * after (d) on connections (d) had used: picks of the table grown again took about 2.7 s each, until the
     * connections were closed.
     */
    @Test
    void aTableEmptiedAgainIsPlannedAfreshNotThroughThePickItsConnectionPrepared() {
        insertRunnableRows(2 * StatementPlanning.SMALL_TABLE_ROWS);
        TestDatabase.jdbc().execute("ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");
        planning.refresh();
        for (int i = 0; i < 10; i++) {
            assertThat(pick(50)).hasSize(50); // the same limit, so the same statement text, as below
        }
        assertThat(pickPreparedOnTheServer()).isTrue();
        long runsOfThePrepared = runsOfThePreparedPick();

        TestDatabase.jdbc().execute("TRUNCATE " + TestDatabase.SCHEMA + ".durable_instance CASCADE");
        TestDatabase.jdbc().execute("VACUUM ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");
        planning.refresh();
        insertRunnableRows(ROWS);
        for (int i = 0; i < 10; i++) {
            assertThat(pick(50)).hasSize(50);
        }

        assertThat(runsOfThePreparedPick()).as("the picks since ran unprepared, each planned for the table as it was")
                .isEqualTo(runsOfThePrepared);
    }

    /** How many times this connection's prepared pick has been planned and run (PostgreSQL 14 and later count it). */
    private long runsOfThePreparedPick() {
        return Objects.requireNonNull(new org.springframework.jdbc.core.JdbcTemplate(
                new SingleConnectionDataSource(connection, true)).queryForObject(
                "SELECT sum(generic_plans + custom_plans) FROM pg_prepared_statements WHERE statement LIKE ?",
                Long.class, "%durable: pick%"));
    }

    /**
     * A signal delivery locks its instance's row: it is planned like the pick. On a table that grew from empty it
     * took 13 ms per call with the empty table's cached plan (100,000 rows), well under a millisecond planned afresh.
     */
    @Test
    void signalDeliveryIsPlannedLikeThePick() {
        SignalRepository signals = new SignalRepository(planning);
        for (int i = 0; i < 20; i++) {
            signals.deliver(1, "go", null, null);
        }
        assertThat(preparedOnTheServer("durable: deliver signal")).as("nothing cached while the table looks small")
                .isFalse();

        insertRunnableRows(2 * StatementPlanning.SMALL_TABLE_ROWS);
        TestDatabase.jdbc().execute("ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");
        planning.refresh();
        for (int i = 0; i < 6; i++) {
            signals.deliver(1, "go", null, "go-" + i);
        }

        assertThat(preparedOnTheServer("durable: deliver signal")).isTrue();
    }

    private static void insertRunnableRows(long count) {
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) SELECT 'm', 1, 's', '{}', 'q'"
                + " FROM generate_series(1, ?)", count);
    }

    /** Whether this test's connection holds a server-side prepared pick (the driver prepares from the 5th use). */
    private boolean pickPreparedOnTheServer() {
        return preparedOnTheServer("durable: pick");
    }

    private boolean preparedOnTheServer(String statementComment) {
        return Boolean.TRUE.equals(new org.springframework.jdbc.core.JdbcTemplate(
                new SingleConnectionDataSource(connection, true)).queryForObject(
                "SELECT count(*) > 0 FROM pg_prepared_statements WHERE statement LIKE ?", Boolean.class,
                "%" + statementComment + "%"));
    }

    private List<ClaimedStep> pick(int limit) {
        return claims.pick("q", Map.of("m", List.of(1)), limit, "node:1", Duration.ofMinutes(1));
    }
}
