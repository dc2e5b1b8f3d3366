package dev.durable.dashboard;

import dev.durable.dashboard.app.Parcels;
import dev.durable.jdbc.DurableSchema;
import dev.durable.test.postgres.TestDatabase;
import dev.durable.test.postgres.TestPostgres;
import org.springframework.test.context.DynamicPropertyRegistry;

/** The dashboard tests' database: durable's tables in the schema {@value #SCHEMA} of the test PostgreSQL. */
final class DashboardDatabase {

    static final String SCHEMA = "durable_dashboard";
    static final TestDatabase DATABASE = TestDatabase.of(SCHEMA, dataSource -> DurableSchema.named(SCHEMA)
            .migrate(dataSource));

    private DashboardDatabase() {
    }

    /** The data source and engine timings of a test application, its tables built first. */
    static void properties(DynamicPropertyRegistry registry) {
        DATABASE.dataSource();
        TestPostgres postgres = TestPostgres.get();
        registry.add("spring.datasource.url", postgres::jdbcUrl);
        registry.add("spring.datasource.username", postgres::username);
        registry.add("spring.datasource.password", postgres::password);
        registry.add("spring.datasource.hikari.maximum-pool-size", () -> "6");
        registry.add("durable.schema", () -> SCHEMA);
        registry.add("durable.poll-interval", () -> "200ms");
        registry.add("durable.idle-poll-interval", () -> "200ms");
        registry.add("durable.shutdown-grace-period", () -> "1s");
        registry.add("durable.queues." + Parcels.QUEUE + ".concurrency", () -> "4");
        registry.add("durable.dashboard.enabled", () -> "true");
        registry.add("durable.dashboard.refresh-interval", () -> "300ms");
        if (postgres.throughTransactionPooler()) {
            registry.add("durable.initialize-schema", () -> "false");
        }
    }
}
