package dev.durable.boot.autoconfigure;

import dev.durable.runtime.DurableEngine;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Makes durable's schema initializer and engine wait for the application's database initializers (Flyway,
 * Liquibase, SQL scripts), so tables the application creates for durable exist before durable looks at them.
 */
final class DurableDependsOnDatabaseInitializationDetector
        extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(DurableEngine.class, DurableSchemaInitializer.class);
    }
}
