package dev.durable.test.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * durable's tables in one schema of the tests' PostgreSQL ({@link TestPostgres}): what the engine tests of
 * durable-core and the starter's tests share. The schema is dropped and built again by {@code migration} on first
 * use in a JVM (a database shared between runs may hold tables of an earlier version of the code); {@link #clean()}
 * empties durable's tables between tests.
 *
 * <p>This module cannot see durable-core (whose tests depend on it), so the caller hands in the migration, e.g.
 * {@code TestDatabase.of("durable_it", ds -> DurableSchema.named("durable_it").migrate(ds))}.
 */
public final class TestDatabase {

    /**
     * durable's tables in the order the engine's statements lock them: an instance row before its signals (a
     * delivery locks the instance, then inserts the signal; a pick claims instances, then consumes their signals),
     * a node before its machines (a registration inserts the node, then its machine versions); the history's counts
     * by minute last, locked only by the history rollup, which reads the history first. Emptied with the history, so
     * that the counts never cover entries a test no longer has. A queue's limit rows first: a limited pick locks its
     * queue's row before it claims instances.
     */
    static final List<String> TABLES = List.of("durable_queue_limit", "durable_queue_limit_waiter", "durable_instance", "durable_signal", "durable_schedule",
            "durable_history", "durable_node", "durable_node_machine", "durable_history_minute",
            "durable_history_rollup");

    private static final int CLEAN_ATTEMPTS = 5;
    private static final Map<String, TestDatabase> BY_SCHEMA = new ConcurrentHashMap<>();

    private final String schema;
    private final Consumer<DataSource> migration;
    private final String truncateAll;
    private final String truncateInstances;
    private boolean migrated;

    private TestDatabase(String schema, Consumer<DataSource> migration) {
        this.schema = schema;
        this.migration = migration;
        this.truncateAll = truncate(TABLES);
        List<String> instances = new ArrayList<>(TABLES);
        instances.removeAll(List.of("durable_node", "durable_node_machine"));
        this.truncateInstances = truncate(instances);
    }

    /**
     * The tables in {@code schema}, built by {@code migration} on first use; one per schema and JVM, so that
     * every test of the JVM sees the schema migrated exactly once.
     *
     * @throws IllegalArgumentException if {@code schema} is not a plain lower-case identifier
     */
    public static TestDatabase of(String schema, Consumer<DataSource> migration) {
        Objects.requireNonNull(migration, "migration");
        if (!schema.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("Not a plain lower-case schema name: '" + schema + "'");
        }
        return BY_SCHEMA.computeIfAbsent(schema, name -> new TestDatabase(name, migration));
    }

    /** The schema of durable's tables. */
    public String schema() {
        return schema;
    }

    /** {@code table} qualified by the schema, e.g. {@code durable_it.durable_instance}. */
    public String table(String table) {
        return schema + "." + table;
    }

    /**
     * The JVM's pool on the test database, the schema migrated on the first call (over a direct connection when the
     * pool goes through a transaction pooler: installing the schema needs a session of its own).
     */
    public synchronized DataSource dataSource() {
        TestPostgres postgres = TestPostgres.get();
        if (!migrated) {
            postgres.dropSchema(schema);
            migration.accept(postgres.directDataSource());
            migrated = true;
        }
        return postgres.dataSource();
    }

    public JdbcTemplate jdbc() {
        return new JdbcTemplate(dataSource());
    }

    /**
     * Empties durable's tables. An engine may still be running on them (a Spring test context is cached, still
     * polling, while the next test class runs): the tables are locked in the engine's order ({@link #TABLES}), and
     * a deadlock with a statement that reads them in another order (the stranded-instances query reads the node
     * tables first) is retried.
     */
    public void clean() {
        execute(truncateAll);
    }

    /**
     * Empties durable's tables and the tests' own {@code tables} of the schema, in one statement (a {@code TRUNCATE}
     * costs its files and a commit, whatever it empties), locking those after durable's. Retries as {@link #clean()}.
     */
    public void clean(List<String> tables) {
        List<String> all = new ArrayList<>(TABLES);
        all.addAll(tables);
        execute(truncate(all));
    }

    /**
     * Empties durable's tables and the tests' own {@code tables} as {@link #clean(List)} does, by {@code DELETE} in one
     * transaction, and restarts the identities they own as {@code RESTART IDENTITY} does. Costs a few milliseconds
     * where a {@code TRUNCATE} costs tens (it gives each of the tables and their indexes a new file, and flushes them
     * at its commit), for the few rows an engine test leaves. The tables keep their files, their dead rows until a
     * vacuum and their statistics: a test of plans, sizes or statistics starts from {@link #clean(List)}. Locks in
     * the same order and retries as {@link #clean()}.
     */
    public void empty(List<String> tables) {
        List<String> all = new ArrayList<>(TABLES);
        all.addAll(tables);
        StringBuilder statements = new StringBuilder();
        all.forEach(table -> statements.append("DELETE FROM ").append(table(table)).append(";\n"));
        // The sequences the tables' identity and serial columns own ('i' and 'a' dependencies), back to their start.
        statements.append("SELECT setval(s.seqrelid, s.seqstart, false) FROM pg_sequence s")
                .append(" JOIN pg_depend d ON d.objid = s.seqrelid AND d.classid = 'pg_class'::regclass")
                .append(" AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('i', 'a')")
                .append(" WHERE d.refobjid IN (")
                .append(String.join(", ", all.stream().map(table -> "'" + table(table) + "'::regclass").toList()))
                .append(")");
        execute(statements.toString());
    }

    /**
     * Empties the instance, signal, schedule and history tables (and the history's counts), keeping the node tables:
     * for tests among which an application keeps running (a Spring test context is cached across test classes). Its
     * node stays registered, where emptying {@code durable_node} would have other nodes, and itself, read its
     * machines' instances as stranded until its next heartbeat. Locks and retries as {@link #clean()}.
     */
    public void cleanKeepingNodes() {
        execute(truncateInstances);
    }

    /** How many instances there are. */
    public int count() {
        Integer count = jdbc().queryForObject("SELECT count(*) FROM " + table("durable_instance"), Integer.class);
        return count == null ? 0 : count;
    }

    /** An instance's status as stored ({@code runnable}, {@code executing}, ...). */
    public String status(long id) {
        return jdbc().queryForObject("SELECT status::text FROM " + table("durable_instance") + " WHERE id = ?",
                String.class, id);
    }

    /**
     * The stored row of one instance, every column, as PostgreSQL text where it is not a plain value. A suspended row
     * waits at {@code eligible_at = 'infinity'}: its {@code eligible_in} is null, its {@code eligible_at_text}
     * {@code infinity}.
     */
    public Map<String, Object> row(long id) {
        return jdbc().queryForMap("""
                SELECT id, machine, machine_version, step, status::text AS status, state::text AS state,
                       result::text AS result, awaits, awaits_set::text AS awaits_set, deadline, queue, priority, partition_key, attempt, last_error,
                       lease_owner, lease_token, lease_expires_at, unique_key, unique_guard,
                       parent_id, cancel_with_parent, children_started, children_ended, awaits_children,
                       eligible_at::text AS eligible_at_text, eligible_at,
                       CASE WHEN isfinite(eligible_at) THEN eligible_at - now() END AS eligible_in,
                       CASE WHEN isfinite(eligible_at) THEN extract(epoch FROM (eligible_at - now())) END
                           AS eligible_in_seconds
                FROM %s WHERE id = ?
                """.formatted(table("durable_instance")), id);
    }

    /** The signals stored for an instance, by id. */
    public List<Map<String, Object>> signals(long instanceId) {
        return jdbc().queryForList("SELECT id, name, payload::text AS payload, dedup_key FROM "
                + table("durable_signal") + " WHERE instance_id = ? ORDER BY id", instanceId);
    }

    private String truncate(List<String> tables) {
        return "TRUNCATE " + String.join(", ", tables.stream().map(this::table).toList()) + " RESTART IDENTITY";
    }

    private void execute(String truncate) {
        for (int attempt = 1; ; attempt++) {
            try {
                jdbc().execute(truncate);
                return;
            } catch (PessimisticLockingFailureException e) {
                if (attempt == CLEAN_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }
}
