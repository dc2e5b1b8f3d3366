package dev.durable.test;

import dev.durable.jdbc.DurableSchema;
import dev.durable.test.postgres.TestDatabase;
import org.springframework.jdbc.core.JdbcTemplate;

/** The kit's own tests' schema on the tests' real PostgreSQL, emptied before each test. */
final class KitDatabase {

    static final String SCHEMA = "durable_kit";
    static final TestDatabase DATABASE = TestDatabase.of(SCHEMA, ds -> DurableSchema.named(SCHEMA).migrate(ds));

    private KitDatabase() {
    }

    static void clean() {
        DATABASE.clean();
    }

    static JdbcTemplate jdbc() {
        return DATABASE.jdbc();
    }
}
