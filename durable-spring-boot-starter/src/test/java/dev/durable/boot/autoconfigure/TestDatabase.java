package dev.durable.boot.autoconfigure;

import dev.durable.jdbc.DurableSchema;
import dev.durable.test.postgres.TestPostgres;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The starter's tests' database: the shared {@link dev.durable.test.postgres.TestDatabase} with durable's tables
 * in the schema {@value #SCHEMA}. Contexts get their own pool from the {@code spring.datasource.*} properties of
 * {@link #properties(String...)}, as an application would.
 */
public final class TestDatabase {

    public static final String SCHEMA = "durable_boot";

    /** durable's tables in {@link #SCHEMA}. */
    public static final dev.durable.test.postgres.TestDatabase DATABASE = dev.durable.test.postgres.TestDatabase
            .of(SCHEMA, dataSource -> DurableSchema.named(SCHEMA).migrate(dataSource));

    private TestDatabase() {
    }

    /**
     * The data source, engine timings short enough for tests, plus {@code more}. The schema is built first: every
     * context gets its properties here, so no running engine ever sees its tables dropped under it.
     */
    public static String[] properties(String... more) {
        DATABASE.dataSource();
        TestPostgres postgres = TestPostgres.get();
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + postgres.jdbcUrl(),
                "spring.datasource.username=" + postgres.username(),
                "spring.datasource.password=" + postgres.password(),
                "spring.datasource.hikari.maximum-pool-size=6",
                "durable.schema=" + SCHEMA,
                "durable.node-name=test-node",
                "durable.poll-interval=200ms",
                "durable.idle-poll-interval=200ms",
                "durable.reaper-interval=500ms",
                "durable.shutdown-grace-period=2s",
                "durable.zombie-grace-period=1s",
                // Steps on virtual threads where the JVM has them, on the platform threads' pool on Java 17: CI runs
                // the suite on both (docs/COMPATIBILITY.md, "JDKs").
                "spring.threads.virtual.enabled=" + (Runtime.version().feature() >= 21)));
        if (postgres.throughTransactionPooler()) {
            // As an application behind PgBouncer would: the schema, built above over a direct connection, is not
            // installed through the pooler (docs/DESIGN.md, "Connection poolers").
            properties.add("durable.initialize-schema=false");
        }
        properties.addAll(List.of(more));
        return properties.toArray(String[]::new);
    }

    public static JdbcTemplate jdbc() {
        return DATABASE.jdbc();
    }

    /**
     * Empties the instance and signal tables, keeping the node tables: applications of earlier test classes, cached
     * by Spring's test framework, go on running in this JVM, and their nodes stay registered (see
     * {@link dev.durable.test.postgres.TestDatabase#cleanKeepingNodes()}). A context that stops removes its node
     * itself.
     */
    public static void clean() {
        DATABASE.cleanKeepingNodes();
    }

    public static int count() {
        return DATABASE.count();
    }

    public static String status(long id) {
        return DATABASE.status(id);
    }
}
