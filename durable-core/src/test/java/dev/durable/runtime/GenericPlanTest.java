package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.node.ProbeRepository;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.time.DeadlineRepository;
import dev.durable.runtime.time.ScheduleRepository;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Once the statistics describe a sizeable table, the statements a node runs over and over (the pick, and the
 * deadline and schedule sweeps of every idle node) are planned once per connection: PostgreSQL settles on their
 * generic plans. A {@code LIMIT} bound as a parameter prevented that (the generic plan, costed for a tenth of the
 * table, never beat a custom one), and each pick cost about 0.7 ms of planning; the limits are now written into the
 * statements' text ({@link LiteralLimits}).
 */
class GenericPlanTest {

    private static final int BACKLOG = 20_000;

    /** A pool of its own: the statements prepared on its connection stay out of other tests' way, and go with it. */
    private HikariDataSource pool;
    private Connection connection;
    private StatementPlanning planning;

    @BeforeEach
    void sizeableTableWithFreshStatistics() throws Exception {
        TestDatabase.clean();
        // A backlog: the statistics count 20,000 runnable rows of queue q and 20,000 parked rows whose deadline
        // passed, so a generic plan with a bound LIMIT would be costed for a tenth of either.
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) SELECT 'm', 1, 's', '{}', 'q'"
                + " FROM generate_series(1, ?)", BACKLOG);
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, status, awaits, deadline)"
                + " SELECT 'm', 1, 's', '{}', 'other', 'awaiting_signal', 'go', now() - interval '1 hour'"
                + " FROM generate_series(1, ?)", BACKLOG);
        TestDatabase.jdbc().execute("ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");
        // One connection, so that every execution below runs on the session that prepared the statements.
        TestDatabase.dataSource(); // the schema, migrated
        pool = TestPostgres.get().newDataSource("durable-generic-plan", 1);
        connection = pool.getConnection();
        planning = new StatementPlanning(new SingleConnectionDataSource(connection, true),
                DurableSchema.named(TestDatabase.SCHEMA));
        planning.refresh();
    }

    @AfterEach
    void release() throws Exception {
        connection.close();
        pool.close();
        TestDatabase.clean();
    }

    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "behind a transaction pooler the driver prepares nothing on the server (prepareThreshold=0)")
    void thePickSettlesOnAGenericPlanWhateverTheNumberOfFreeSlots() {
        ClaimRepository claims = new ClaimRepository(planning, History.off());
        for (int i = 1; i <= 10; i++) {
            assertThat(claims.pick("q", Map.of("m", List.of(1)), i, "node:1", Duration.ofMinutes(1))).hasSize(i);
        }

        assertThat(genericPlans("durable: pick")).isPositive();
    }

    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "behind a transaction pooler the driver prepares nothing on the server (prepareThreshold=0)")
    void theSweepsOfAnIdleNodeSettleOnGenericPlans() {
        DeadlineRepository deadlines = new DeadlineRepository(planning);
        ScheduleRepository schedules = new ScheduleRepository(planning);
        for (int i = 0; i < 10; i++) {
            assertThat(deadlines.fireDue(100)).hasSize(100);
            assertThat(schedules.due(List.of("m"), 1000)).isEmpty();
        }

        assertThat(genericPlans("durable: fire deadlines")).isPositive();
        assertThat(genericPlans("durable: due schedules")).isPositive();
    }

    /**
     * The probe runs on every node every poll interval. On an analyzed empty table its generic plan scans the table
     * (a seq scan costs nothing there), which on a table grown since would be a scan per probe: so, like the other hot
     * statements, it is planned afresh while the statistics call the table small ({@link StatementPlanning#hot()}).
     * Once they describe a sizeable table, its generic plan walks the indexes, should PostgreSQL choose it (it mostly
     * plans the probe for each execution, the queues' array being known only then: a cost the idle node's benchmark
     * counts).
     */
    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "behind a transaction pooler the driver prepares nothing on the server (prepareThreshold=0)")
    void theProbesGenericPlanOnASizeableTableWalksTheIndexes() throws Exception {
        assertThat(genericPlan(ProbeRepository.PROBE)).doesNotContain("Seq Scan")
                .contains("durable_instance_pick", "durable_instance_deadline", "durable_schedule_due");
        assertThat(genericPlan(ProbeRepository.PROBE_EVERY_PRIORITY)).doesNotContain("Seq Scan")
                .contains("durable_instance_pick");

        ProbeRepository probes = new ProbeRepository(planning);
        assertThat(probes.probe(List.of("q"), List.of("m")).queue("q")).isNotNull().isNotPositive();
        assertThat(probes.probeEveryPriority(List.of("q")).queue("q")).isNotNull().isNotPositive();
    }

    @Test
    void onAnAnalyzedEmptyTableTheProbesGenericPlanWouldScanTheTableSoItIsPlannedAfresh() throws Exception {
        TestDatabase.jdbc().execute("TRUNCATE " + TestDatabase.SCHEMA + ".durable_instance CASCADE");
        TestDatabase.jdbc().execute("ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");
        planning.refresh();

        assertThat(genericPlan(ProbeRepository.PROBE)).as("why the probe is a hot statement").contains("Seq Scan");
        ProbeRepository probes = new ProbeRepository(planning);
        for (int i = 0; i < 10; i++) {
            assertThat(probes.probe(List.of("q"), List.of("m")).queues()).isEmpty();
        }
        assertThat(genericPlans("durable: probe")).as("never prepared on the server").isZero();
    }

    /** The generic plan of a probe, as EXPLAIN prints it, made for the table as its statistics describe it now. */
    private String genericPlan(String sql) throws Exception {
        String probe = sql.replace("{schema}", TestDatabase.SCHEMA)
                .replace(":queues::text[]", "$1::text[]").replace(":machines::text[]", "$2::text[]");
        StringBuilder plan = new StringBuilder();
        try (Connection own = TestDatabase.dataSource().getConnection(); Statement statement = own.createStatement()) {
            // One transaction, so that behind a transaction pooler PREPARE, EXPLAIN EXECUTE and DEALLOCATE meet in one
            // server session; SET LOCAL ends with it. A prepared statement outlives a rollback, hence DEALLOCATE (and a
            // name of its own, should a failed EXPLAIN leave it behind on the pooled connection).
            own.setAutoCommit(false);
            String name = "probe_generic_" + System.nanoTime();
            try {
                statement.execute("SET LOCAL plan_cache_mode = force_generic_plan");
                statement.execute("PREPARE " + name + "(text[], text[]) AS " + probe);
                try (ResultSet rows = statement.executeQuery("EXPLAIN EXECUTE " + name + "('{q}', '{m}')")) {
                    while (rows.next()) {
                        plan.append(rows.getString(1)).append('\n');
                    }
                }
                statement.execute("DEALLOCATE " + name);
            } finally {
                own.rollback();
            }
        }
        return plan.toString();
    }

    /**
     * The pick writes a bucket of at least the rows wanted into its text and takes the exact number above it: the
     * rows it locks are the rows it claims, not the bucket's worth.
     */
    @Test
    void aPickLocksOnlyTheRowsItClaims() {
        ClaimRepository claims = new ClaimRepository(planning, History.off());

        assertThat(claims.pick("q", Map.of("m", List.of(1)), 3, "node:1", Duration.ofMinutes(1))).hasSize(3);

        // A row locked and left keeps the locker's transaction id in xmax; a row never touched has none.
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE status = 'runnable' AND xmax <> '0'", Long.class)).isZero();
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE status = 'runnable'", Long.class)).isEqualTo(BACKLOG - 3);
    }

    /** How many times this test's connection ran the prepared statement with {@code comment} on a generic plan. */
    private long genericPlans(String comment) {
        Long plans = new JdbcTemplate(new SingleConnectionDataSource(connection, true)).queryForObject(
                "SELECT coalesce(sum(generic_plans), 0) FROM pg_prepared_statements WHERE statement LIKE ?",
                Long.class, "%" + comment + "%");
        return plans == null ? 0 : plans;
    }
}
