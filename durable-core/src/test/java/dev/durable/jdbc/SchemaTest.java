package dev.durable.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.InstanceStatus;
import dev.durable.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The schema ships in main resources as a Liquibase changelog and as plain SQL; both are tested here against a
 * real PostgreSQL, in schemas other than {@code public}.
 */
class SchemaTest {

    private final DataSource dataSource = TestDatabase.dataSource();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    @Test
    void theChangelogCreatesTheTablesInTheConfiguredSchemaWithItsOwnTrackingTables() {
        DurableSchema schema = DurableSchema.named("durable_schema_test");
        jdbc.execute("DROP SCHEMA IF EXISTS durable_schema_test CASCADE");

        schema.migrate(dataSource);
        schema.migrate(dataSource); // idempotent: a second start applies nothing

        assertThat(schema.isInstalled(dataSource)).isTrue();
        assertThat(jdbc.queryForList("SELECT table_name FROM information_schema.tables"
                + " WHERE table_schema = 'durable_schema_test' ORDER BY table_name", String.class))
                .containsExactly("durable_changelog", "durable_changelog_lock", "durable_history",
                        "durable_history_minute", "durable_history_rollup", "durable_instance",
                        "durable_node", "durable_node_machine", "durable_queue_limit", "durable_queue_limit_waiter",
                        "durable_schedule", "durable_schema_version",
                        "durable_signal");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM durable_schema_test.durable_changelog", Long.class))
                .isEqualTo(DurableSchema.SQL_SCRIPTS.size());
        assertThat(DurableSchema.named("durable_nowhere").isInstalled(dataSource)).isFalse();
        // The database's statuses are the Java enum's labels, in order; suspended is stored as a runnable row with a
        // reason (docs/DESIGN.md, "Suspension").
        assertThat(jdbc.queryForList("SELECT unnest(enum_range(NULL::durable_schema_test.durable_status))::text",
                String.class)).containsExactlyElementsOf(Arrays.stream(InstanceStatus.values())
                        .filter(status -> status != InstanceStatus.SUSPENDED).map(InstanceStatus::label).toList());
        jdbc.execute("DROP SCHEMA durable_schema_test CASCADE");
    }

    @Test
    void thePlainSqlFileBuildsTheSameSchemaAsTheChangelog() throws IOException {
        jdbc.execute("DROP SCHEMA IF EXISTS durable_plain CASCADE");
        jdbc.execute("CREATE SCHEMA durable_plain");
        for (String script : DurableSchema.SQL_SCRIPTS) {
            String sql;
            try (InputStream in = getClass().getResourceAsStream("/" + script)) {
                sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            // As a user of another migration tool would run it: in order, with search_path set to the target schema,
            // one statement at a time (a CREATE INDEX CONCURRENTLY cannot share a transaction with another).
            jdbc.execute((ConnectionCallback<Void>) connection -> {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET search_path TO durable_plain");
                    for (String each : sql.replaceAll("(?m)^\\s*--.*$", "").split(";\\s*\\n")) {
                        if (!each.isBlank()) {
                            statement.execute(each);
                        }
                    }
                    statement.execute("SET search_path TO DEFAULT");
                }
                return null;
            });
        }

        assertThat(describe("durable_plain")).isEqualTo(describe(TestDatabase.SCHEMA));
        jdbc.execute("DROP SCHEMA durable_plain CASCADE");
    }

    /**
     * Schema version 7: the look-ups by unique and correlation key have indexes of their own, in id order, that hold
     * only the rows with a key, so instances started without one cost them nothing.
     */
    @Test
    void theBusinessKeyIndexesHoldOnlyRowsWithAKeyInIdOrder() {
        assertThat(jdbc.queryForList("SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname IN"
                + " ('durable_instance_unique_key', 'durable_instance_correlation_key') ORDER BY indexname",
                String.class, TestDatabase.SCHEMA)).containsExactly(
                        "CREATE INDEX durable_instance_correlation_key ON " + TestDatabase.SCHEMA
                                + ".durable_instance USING btree (correlation_key, id)"
                                + " WHERE (correlation_key IS NOT NULL)",
                        "CREATE INDEX durable_instance_unique_key ON " + TestDatabase.SCHEMA
                                + ".durable_instance USING btree (unique_key, id) WHERE (unique_key IS NOT NULL)");
        assertThat(jdbc.queryForObject("SELECT data_type || ' ' || is_nullable FROM information_schema.columns"
                + " WHERE table_schema = ? AND table_name = 'durable_instance' AND column_name = 'correlation_key'",
                String.class, TestDatabase.SCHEMA)).isEqualTo("text YES");
    }

    @Test
    void aSchemaNameMustBeAPlainLowerCaseIdentifier() {
        assertThatThrownBy(() -> DurableSchema.named("Durable")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Schema name 'Durable' is not a lower-case PostgreSQL identifier");
        assertThatThrownBy(() -> DurableSchema.named("a; DROP TABLE b")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Columns (type, nullability, default, generation), indexes and constraints of durable's tables. */
    private List<String> describe(String schema) {
        List<String> description = new java.util.ArrayList<>(jdbc.queryForList("""
                SELECT table_name || '.' || column_name || ' ' || udt_name || ' ' || is_nullable || ' '
                       || coalesce(replace(column_default, ?, 'S.'), '') || ' '
                       || coalesce(replace(generation_expression, ?, 'S.'), '')
                FROM information_schema.columns
                WHERE table_schema = ? AND table_name LIKE 'durable\\_%' AND table_name NOT LIKE 'durable\\_changelog%'
                ORDER BY table_name, ordinal_position
                """, String.class, schema + ".", schema + ".", schema));
        description.addAll(jdbc.queryForList("""
                SELECT indexname || ' ' || replace(indexdef, ?, 'S.') FROM pg_indexes
                WHERE schemaname = ? AND tablename LIKE 'durable\\_%' AND tablename NOT LIKE 'durable\\_changelog%'
                ORDER BY indexname
                """, String.class, schema + ".", schema));
        description.addAll(jdbc.queryForList("""
                SELECT c.conname || ' ' || replace(pg_get_constraintdef(c.oid), ?, 'S.')
                FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                JOIN pg_class t ON t.oid = c.conrelid
                WHERE n.nspname = ? AND t.relname IN ('durable_instance', 'durable_signal') ORDER BY c.conname
                """, String.class, schema + ".", schema));
        description.add(jdbc.queryForObject("""
                SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e
                JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE n.nspname = ? AND t.typname = 'durable_status'
                """, String.class, schema));
        return description;
    }
}
