package dev.durable.boot.autoconfigure;

import dev.durable.jdbc.DurableSchema;
import dev.durable.test.postgres.TestPostgres;
import java.util.ArrayList;
import java.util.List;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The real PostgreSQL the starter's tests run against (see {@link TestPostgres}), with durable's tables in the
 * schema {@value #SCHEMA}. Contexts get their own pool from the {@code spring.datasource.*} properties of
 * {@link #properties(String...)}, as an application would.
 */
public final class TestDatabase {

    public static final String SCHEMA = "durable_boot";

    private static boolean migrated;

    private TestDatabase() {
    }

    /** The data source, engine timings short enough for tests, plus {@code more}. */
    public static String[] properties(String... more) {
        recreateSchemaOnce();
        TestPostgres postgres = TestPostgres.get();
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + postgres.jdbcUrl(),
                "spring.datasource.username=" + postgres.username(),
                "spring.datasource.password=" + postgres.password(),
                "spring.datasource.hikari.maximum-pool-size=6",
                "durable.schema=" + SCHEMA,
                "durable.node-name=test-node",
                "durable.poll-interval=200ms",
                "durable.reaper-interval=500ms",
                "durable.shutdown-grace-period=2s",
                "durable.zombie-grace-period=1s"));
        properties.addAll(List.of(more));
        return properties.toArray(String[]::new);
    }

    public static JdbcTemplate jdbc() {
        recreateSchemaOnce();
        return new JdbcTemplate(TestPostgres.get().dataSource());
    }

    /**
     * Starts this JVM's tests on a schema built by the current changelog (not one left by an older build). Done
     * on first use of either entry point: every context gets its properties from {@link #properties(String...)}
     * first, so no running engine ever sees its tables dropped under it.
     */
    private static synchronized void recreateSchemaOnce() {
        if (!migrated) {
            TestPostgres.get().dropSchema(SCHEMA);
            DurableSchema.named(SCHEMA).migrate(TestPostgres.get().dataSource());
            migrated = true;
        }
    }

    /**
     * Empties durable's tables. An application of an earlier test may still be polling them: the instance table is
     * locked first, in the order the engine's statements take them, and a deadlock that happens anyway is retried.
     */
    public static void clean() {
        for (int attempt = 1; ; attempt++) {
            try {
                jdbc().execute("TRUNCATE " + SCHEMA + ".durable_instance, " + SCHEMA
                        + ".durable_signal RESTART IDENTITY");
                return;
            } catch (PessimisticLockingFailureException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    public static int count() {
        Integer count = jdbc().queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_instance", Integer.class);
        return count == null ? 0 : count;
    }

    public static String status(long id) {
        return jdbc().queryForObject("SELECT status::text FROM " + SCHEMA + ".durable_instance WHERE id = ?",
                String.class, id);
    }
}
