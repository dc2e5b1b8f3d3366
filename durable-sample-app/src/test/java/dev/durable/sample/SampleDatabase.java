package dev.durable.sample;

import dev.durable.test.postgres.TestPostgres;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points a sample application under test at the tests' PostgreSQL, with durable's tables in a schema of the test's
 * own, dropped first: the application's schema initializer creates it afresh, so every test class starts empty.
 */
final class SampleDatabase {

    private SampleDatabase() {
    }

    /** For a {@code @DynamicPropertySource} method: the datasource, and {@code durable.schema} set to {@code schema}. */
    static void use(DynamicPropertyRegistry registry, String schema) {
        TestPostgres postgres = TestPostgres.get();
        postgres.dropSchema(schema);
        registry.add("durable.schema", () -> schema);
        registry.add("spring.datasource.url", postgres::jdbcUrl);
        registry.add("spring.datasource.username", postgres::username);
        registry.add("spring.datasource.password", postgres::password);
    }
}
