package dev.durable.runtime.jdbc;

import dev.durable.jdbc.DurableSchema;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * How the repositories' statements reach PostgreSQL: written for the engine's schema, and sent through a client
 * that lets PostgreSQL cache their plans or one that has them planned at every execution (docs/DESIGN.md,
 * "Statement planning"). One instance is shared by every repository of an engine, so the policy is decided in one
 * place and the reaper's look at the statistics serves them all.
 *
 * <p>While the statistics say {@code durable_instance} is small, a plan cached from them may scan it in a nested
 * loop, and picks on a table that has since grown took seconds (docs/DESIGN.md, pitfall P13; see
 * {@link FreshlyPlannedJdbcTemplate}): the hot statements are then planned at every execution, from the table's
 * real size. Once the statistics describe a sizeable table, plans made from them reach rows through the indexes and
 * stay good as the table grows, so the hot statements are prepared on the server again and their plans cached (a
 * generic plan saves about a millisecond of planning per batch).
 */
public final class StatementPlanning {

    /** Below this many rows by the statistics' estimate, hot statements are planned at every execution. */
    public static final long SMALL_TABLE_ROWS = 10_000;

    static final String TABLE_SIZE_ESTIMATE = """
            /* durable: table size estimate */
            SELECT c.reltuples::bigint
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = :schema AND c.relname = 'durable_instance'
            """;

    /**
     * Appended to every statement planned at every execution, so that its text differs from the same statement sent
     * through {@link #ordinary()}: the driver keeps one cached query per text and connection, and once it has prepared
     * a text on the server it binds every later execution of that text to the prepared statement, whatever the prepare
     * threshold of the statement that runs it. Without the mark, a connection that ran the pick while the table was
     * large went on running its prepared pick after the table was emptied, which PostgreSQL re-planned from the
     * emptied table's statistics (pitfall P13 again, through the back door: 2.7 s per pick in the benchmark).
     */
    static final String PLANNED_AFRESH = "\n/* durable: planned at every execution */";

    /**
     * What a statement reads as the database's time under a test kit's movable clock (docs/DESIGN.md, "Time in
     * tests"): {@code now()} plus the shift kept in the one row of the schema's {@code durable_test_clock}, a table
     * only the test kit creates. An uncorrelated scalar subquery, computed once per execution before the scan.
     */
    public static final String SHIFTED_NOW = "(now() + (SELECT shift FROM {schema}.durable_test_clock))";
    /** {@code clock_timestamp()} under a test kit's movable clock, shifted like {@link #SHIFTED_NOW}. */
    public static final String SHIFTED_CLOCK_TIMESTAMP =
            "(clock_timestamp() + (SELECT shift FROM {schema}.durable_test_clock))";

    private final DurableSchema schema;
    private final DataSource dataSource;
    /** Whether the statements read time from the schema's test clock: never in production. */
    private final boolean movableClock;
    /** Statements the driver may prepare on the server, so PostgreSQL may cache a generic plan for them. */
    private final JdbcClient ordinary;
    /** The same statements planned at every execution: see {@link #hot()}. */
    private final JdbcClient freshlyPlanned;
    /** The channel writes notify on, or null when the nodes poll only (docs/DESIGN.md, "Wake-ups"). */
    private final @Nullable String wakeChannel;
    /** Whether the table's statistics describe it as small; until the first look, assume they do. */
    private volatile boolean statisticsSaySmall = true;

    /** Statements as written, that notify no one. */
    public StatementPlanning(DataSource dataSource, DurableSchema schema) {
        this(dataSource, schema, false);
    }

    /**
     * Statements that notify no one (nodes poll only).
     *
     * @param movableClock whether the statements read time from the schema's test clock ({@link #SHIFTED_NOW});
     *                     false in production, where every statement is sent as written
     */
    public StatementPlanning(DataSource dataSource, DurableSchema schema, boolean movableClock) {
        this(dataSource, schema, movableClock, false);
    }

    /**
     * @param movableClock as above
     * @param notify       whether writes that make work runnable, or cancel executing instances, notify other nodes
     */
    public StatementPlanning(DataSource dataSource, DurableSchema schema, boolean movableClock, boolean notify) {
        this.schema = schema;
        this.dataSource = dataSource;
        this.movableClock = movableClock;
        this.wakeChannel = notify ? WakeUpChannel.of(schema.name()) : null;
        this.ordinary = JdbcClient.create(dataSource);
        JdbcClient unprepared = JdbcClient.create(new FreshlyPlannedJdbcTemplate(dataSource));
        this.freshlyPlanned = sql -> unprepared.sql(sql + PLANNED_AFRESH);
    }

    /** Where the clients run their statements: for a repository that runs some in a transaction of its own. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * A repository's statement as sent: every {@code {schema}} replaced by the schema's name, validated by
     * {@link DurableSchema} (identifiers cannot be bound as parameters; values always are). This is the one place
     * durable's statements take their time from: in production the text is sent as written, {@code now()} and
     * {@code clock_timestamp()} included; under a test kit's movable clock each of them reads the schema's test
     * clock instead ({@link #SHIFTED_NOW}).
     */
    public String qualify(String statement) {
        String timed = movableClock
                ? statement.replace("now()", SHIFTED_NOW).replace("clock_timestamp()", SHIFTED_CLOCK_TIMESTAMP)
                : statement;
        return timed.replace("{schema}", schema.name());
    }

    /** Whether the statements read time from the schema's test clock (docs/DESIGN.md, "Time in tests"). */
    public boolean movableClock() {
        return movableClock;
    }

    /**
     * The channel that writes making work runnable notify on, in their own transaction (bound as {@code :wakeChannel};
     * a statement notifies nothing when it is null): null when the nodes poll only.
     */
    public @Nullable String wakeChannel() {
        return wakeChannel;
    }

    /**
     * The client of the hot statements: pick, outcome writes, heartbeat, reap, the release statements, the
     * hand-back after an Error, and signal delivery (which locks an instance row by its key). Planned at every
     * execution while the statistics say the table is small, else the {@link #ordinary()} client.
     */
    public JdbcClient hot() {
        return statisticsSaySmall ? freshlyPlanned : ordinary;
    }

    /**
     * The client of the searches ({@code SearchRepository}), planned at every execution whatever the table's size:
     * their criteria are each optional, and a plan made for the values given drops the tests of the criteria not set
     * and reaches a key that is set through its index. A cached generic plan would be one plan for every combination.
     */
    public JdbcClient freshlyPlanned() {
        return freshlyPlanned;
    }

    /** The client of the statements off the step's path (inserts, reads, node registration): plans may be cached. */
    public JdbcClient ordinary() {
        return ordinary;
    }

    /**
     * Looks at what the table's statistics say about its size (the estimate autovacuum's ANALYZE keeps), so that
     * {@link #hot()} knows whether cached plans can be trusted. The reaper calls it on every run.
     */
    public void refresh() {
        Long estimate = ordinary.sql(TABLE_SIZE_ESTIMATE).param("schema", schema.name()).query(Long.class).optional()
                .orElse(-1L);
        statisticsSaySmall = estimate < SMALL_TABLE_ROWS; // -1: never analyzed
    }
}
