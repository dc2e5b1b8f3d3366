package dev.durable.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.DurableEngine;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.AbstractDataSource;

/**
 * The schema records its version (changeset {@code durable-schema-v14}), and a node whose code is older than the
 * schema, a rollback past an upgrade, refuses to start before it writes anything, naming both versions (issue 27).
 * An install prints no server NOTICE.
 */
class SchemaVersionTest {

    private static final String SCHEMA = "durable_version";
    private static final List<String> TABLES = List.of("durable_changelog", "durable_changelog_lock",
            "durable_instance", "durable_signal", "durable_node", "durable_node_machine", "durable_schedule",
            "durable_history", "durable_schema_version", "durable_history_minute", "durable_history_rollup",
            "durable_queue_limit", "durable_queue_limit_waiter");

    record Order(int id) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final DataSource dataSource = TestDatabase.dataSource();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    @AfterEach
    void dropSchema() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }

    private static MachineDefinition orders() {
        return MachineDefinition.builder("orders", 1, Order.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.next("ship", state)
                        : Outcome.await("paid", state))
                .step("ship", (state, ctx) -> Outcome.done("shipped " + state.id()))
                .build();
    }

    @Test
    void theSchemaRecordsTheVersionOfTheLastScriptWhichTheCodeKnows() throws IOException {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        assertThat(schema.installedVersion(dataSource)).isNull();

        schema.migrate(dataSource);

        assertThat(schema.installedVersion(dataSource)).isEqualTo(DurableSchema.VERSION);
        assertThat(DurableSchema.SQL_SCRIPTS).hasSize(DurableSchema.VERSION);
        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class)).hasSize(DurableSchema.VERSION).last()
                .isEqualTo("durable-schema-v" + DurableSchema.VERSION);
        // The last script sets the version it is, as every later one must (its comment says how).
        String last = DurableSchema.SQL_SCRIPTS.get(DurableSchema.SQL_SCRIPTS.size() - 1);
        assertThat(last).contains("/V" + DurableSchema.VERSION + "__");
        try (InputStream in = getClass().getResourceAsStream("/" + last)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).containsAnyOf(
                    "VALUES (" + DurableSchema.VERSION + ")", "SET version = " + DurableSchema.VERSION + " ");
        }
    }

    @Test
    void aSchemaNewerThanTheCodeRefusesTheStartNamingBothVersionsAndWritesNothing() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource);
        long parked = insertOrder(1);
        // What a newer release's upgrade leaves: its changeset applied, the version raised.
        int newer = DurableSchema.VERSION + 1;
        jdbc.update("UPDATE " + SCHEMA + ".durable_schema_version SET version = ?", newer);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_changelog (id, author, filename, dateexecuted, orderexecuted,"
                + " exectype) VALUES (?, 'durable', 'dev/durable/db/changelog.xml', now(), ?, 'EXECUTED')",
                "durable-schema-v" + newer, newer);
        Map<String, List<Map<String, Object>>> before = snapshot();

        String expected = "durable's schema '" + SCHEMA + "' is at version " + newer + ", newer than this code's"
                + " version " + DurableSchema.VERSION;
        // The starter's install at startup refuses before Liquibase takes its lock ...
        assertThatThrownBy(() -> schema.migrate(dataSource)).isInstanceOf(SchemaTooNewException.class)
                .hasMessageStartingWith(expected).hasMessageContaining("wrote nothing");
        // ... and so does a node whose schema is installed by other means, before it registers or picks.
        DurableEngine engine = engines.build("rolled-back", settings -> settings.schema(SCHEMA), orders());
        assertThatThrownBy(engine::start).isInstanceOfSatisfying(SchemaTooNewException.class, e -> {
            assertThat(e.schemaVersion()).isEqualTo(newer);
            assertThat(e.codeVersion()).isEqualTo(DurableSchema.VERSION);
        }).hasMessageStartingWith(expected);

        assertThat(snapshot()).isEqualTo(before);
        assertThat(jdbc.queryForObject("SELECT status::text FROM " + SCHEMA + ".durable_instance WHERE id = ?",
                String.class, parked)).isEqualTo("runnable");
    }

    @Test
    void aVersion13DatabaseWithLiveInstancesIsUpgradedToRecordItsVersionAndRunsOn() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource, "dev/durable/db/changelog-v13.xml");
        long first = insertOrder(1);
        long second = insertOrder(2);
        assertThat(schema.installedVersion(dataSource)).isNull();
        List<Map<String, Object>> instancesBefore = jdbc.queryForList("SELECT to_jsonb(t)::text AS row FROM "
                + SCHEMA + ".durable_instance t ORDER BY id");

        schema.migrate(dataSource);

        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class)).endsWith("durable-schema-v13", "durable-schema-v14", "durable-schema-v15",
                "durable-schema-v16", "durable-schema-v17", "durable-schema-v18", "durable-schema-v19");
        assertThat(schema.installedVersion(dataSource)).isEqualTo(DurableSchema.VERSION);
        // Version 15's column comes empty; every other value is kept.
        assertThat(jdbc.queryForList("SELECT (to_jsonb(t) - 'trace_context')::text AS row FROM " + SCHEMA
                + ".durable_instance t ORDER BY id")).isEqualTo(instancesBefore);
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders());
        engine.client().signal(first, "paid", "yes", "evt-1");
        engine.client().signal(second, "paid", "yes", "evt-2");
        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA
                + ".durable_instance WHERE status = 'done'", Integer.class) == 2);
    }

    @Test
    void anInstallOnAnEmptySchemaAndItsRepeatPrintNoNotice() throws Exception {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        List<String> notices = new CopyOnWriteArrayList<>();
        DataSource listening = noticesOf(dataSource, notices);
        // The capture hears what the server says: a statement that finds its work done says so.
        try (Connection connection = listening.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS public");
        }
        assertThat(notices).singleElement().asString().contains("already exists, skipping");
        notices.clear();

        DurableSchema.named(SCHEMA).migrate(listening);
        DurableSchema.named(SCHEMA).migrate(listening);

        assertThat(notices).isEmpty();
        assertThat(DurableSchema.named(SCHEMA).installedVersion(dataSource)).isEqualTo(DurableSchema.VERSION);
        // The session's settings went back to what they were: the connection returns to the application's pool.
        assertThat(jdbc.queryForObject("SHOW client_min_messages", String.class)).isEqualTo("notice");
    }

    private long insertOrder(int order) {
        return jdbc.queryForObject("INSERT INTO " + SCHEMA + ".durable_instance (machine, machine_version, step,"
                + " state, queue) VALUES ('orders', 1, 'pay', ?::jsonb, 'default') RETURNING id", Long.class,
                "{\"id\": " + order + "}");
    }

    private Map<String, List<Map<String, Object>>> snapshot() {
        Map<String, List<Map<String, Object>>> tables = new java.util.TreeMap<>();
        for (String table : TABLES) {
            tables.put(table, jdbc.queryForList("SELECT to_jsonb(t)::text AS row FROM " + SCHEMA + "." + table
                    + " t ORDER BY to_jsonb(t)::text"));
        }
        return tables;
    }

    /** {@code target}, recording every SQLWarning (a server NOTICE or WARNING) its statements and connections get. */
    private static DataSource noticesOf(DataSource target, List<String> notices) {
        return new AbstractDataSource() {
            @Override
            public Connection getConnection() throws java.sql.SQLException {
                return recording(target.getConnection(), Connection.class, notices);
            }

            @Override
            public Connection getConnection(String username, String password) {
                throw new UnsupportedOperationException();
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static <T> T recording(T target, Class<T> type, List<String> notices) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
                return method.invoke(target, args);
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (target instanceof Statement statement && method.getName().startsWith("execute")) {
                record(statement.getWarnings(), notices);
            } else if (target instanceof Connection connection && !method.getName().equals("close")
                    && !method.getName().equals("isClosed") && !connection.isClosed()) {
                record(connection.getWarnings(), notices);
            }
            Class<?> returned = method.getReturnType();
            if (result != null && Statement.class.isAssignableFrom(returned)) {
                return recording(result, (Class<Object>) returned, notices);
            }
            return result;
        };
        return (T) Proxy.newProxyInstance(SchemaVersionTest.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static void record(SQLWarning warning, List<String> notices) {
        for (SQLWarning each = warning; each != null; each = each.getNextWarning()) {
            if (!notices.contains(each.getMessage())) {
                notices.add(each.getMessage());
            }
        }
    }
}
