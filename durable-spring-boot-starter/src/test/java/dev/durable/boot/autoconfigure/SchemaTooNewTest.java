package dev.durable.boot.autoconfigure;

import static dev.durable.boot.autoconfigure.AutoConfigurationRunner.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.jdbc.DurableSchema;
import dev.durable.jdbc.SchemaTooNewException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application rolled back past a schema upgrade does not start, whether the starter installs the schema or not,
 * and Spring Boot says why without a stack trace, naming both versions (issue 27; docs/DESIGN.md, "Data model").
 */
class SchemaTooNewTest {

    private static final String SCHEMA = "durable_rolled_back";
    private static final int NEWER = DurableSchema.VERSION + 1;

    private final JdbcTemplate jdbc = TestDatabase.jdbc();

    @AfterEach
    void dropSchema() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }

    @Test
    void aSchemaNewerThanTheCodeFailsTheStartNamingBothVersionsAndWritesNothing() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema.named(SCHEMA).migrate(jdbc.getDataSource());
        jdbc.update("UPDATE " + SCHEMA + ".durable_schema_version SET version = ?", NEWER);
        Map<String, List<Map<String, Object>>> before = snapshot();

        for (String initializeSchema : List.of("true", "false")) {
            AutoConfigurationRunner.create().withUserConfiguration(TestMachines.Greeter.class)
                    .withPropertyValues("durable.schema=" + SCHEMA, "durable.initialize-schema=" + initializeSchema)
                    .run(context -> {
                        assertStartupFailure(context, SchemaTooNewException.class, "durable's schema '" + SCHEMA
                                + "' is at version " + NEWER + ", newer than this code's version "
                                + DurableSchema.VERSION);
                        FailureAnalysis analysis = new SchemaTooNewFailureAnalyzer()
                                .analyze(context.getStartupFailure());
                        assertThat(analysis).isNotNull();
                        assertThat(analysis.getDescription()).contains("Schema version: " + NEWER)
                                .contains("This code's version: " + DurableSchema.VERSION);
                        assertThat(analysis.getAction()).startsWith("Deploy a release that knows schema version "
                                + NEWER + " or later");
                    });
        }

        assertThat(snapshot()).isEqualTo(before);
    }

    private Map<String, List<Map<String, Object>>> snapshot() {
        Map<String, List<Map<String, Object>>> tables = new java.util.TreeMap<>();
        for (String table : jdbc.queryForList("SELECT table_name FROM information_schema.tables WHERE table_schema = ?",
                String.class, SCHEMA)) {
            tables.put(table, jdbc.queryForList("SELECT to_jsonb(t)::text AS row FROM " + SCHEMA + "." + table
                    + " t ORDER BY to_jsonb(t)::text"));
        }
        return tables;
    }
}
