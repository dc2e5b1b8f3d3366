package dev.durable.boot.test;

import dev.durable.boot.DurableCustomizer;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineDriver;
import dev.durable.runtime.EngineSettings;
import dev.durable.test.DurableTestEngine;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * What {@link DurableTest} imports: a {@link DurableCustomizer}, run after the application's own, that names the
 * node {@value DurableTestEngine#NODE_NAME}, builds the engine on the schema's test clock (the engine's start then
 * starts no background loop) and prepares the schema (refused if live nodes use it; the test clock created); and the
 * {@link DurableTestEngine} that drives the engine.
 */
@Configuration(proxyBeanMethods = false)
public class DurableTestConfiguration {

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    DurableCustomizer durableTestClock(ObjectProvider<DataSource> dataSources) {
        return (settings, engine) -> {
            settings.nodeName(DurableTestEngine.NODE_NAME);
            EngineSettings built = settings.build();
            DurableTestEngine.prepare(dataSources.getObject(), built.schema(), built.leaseTtl());
            EngineDriver.onTestClock(engine);
        };
    }

    /** Not closed by itself: the context stops and closes the engine. */
    @Bean(destroyMethod = "")
    DurableTestEngine durableTestEngine(DurableEngine engine, ObjectProvider<DataSource> dataSources) {
        return DurableTestEngine.of(engine, dataSources.getObject());
    }
}
