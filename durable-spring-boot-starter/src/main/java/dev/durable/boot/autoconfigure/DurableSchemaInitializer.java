package dev.durable.boot.autoconfigure;

import dev.durable.jdbc.DurableSchema;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs or updates durable's tables before the engine is built: runs the shipped Liquibase changelog
 * ({@link DurableSchema#migrate(DataSource)}), which applies only what is missing. The engine's bean calls it with
 * the schema of its final settings (after any {@code DurableCustomizer}), so the tables land where the engine looks.
 */
final class DurableSchemaInitializer {

    private static final Logger log = LoggerFactory.getLogger(DurableSchemaInitializer.class);

    private final DataSource dataSource;
    private final @Nullable ClassLoader classLoader;

    DurableSchemaInitializer(DataSource dataSource, @Nullable ClassLoader classLoader) {
        this.dataSource = dataSource;
        this.classLoader = classLoader;
    }

    void initialize(DurableSchema schema) {
        if (!DurableSchema.liquibaseAvailable(classLoader)) {
            throw new IllegalStateException("durable.initialize-schema is true but Liquibase is not on the classpath:"
                    + " add org.liquibase:liquibase-core, or set durable.initialize-schema=false and create the"
                    + " tables with your own migrations (the SQL ships as " + DurableSchema.SQL_SCRIPTS + ")");
        }
        long started = System.nanoTime();
        schema.migrate(dataSource);
        log.debug("durable's schema '{}' is up to date ({} ms)", schema.name(),
                (System.nanoTime() - started) / 1_000_000);
    }
}
