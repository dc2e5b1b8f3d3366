package dev.durable.boot.autoconfigure;

import dev.durable.DurableClient;
import dev.durable.boot.DurableCustomizer;
import dev.durable.boot.DurableDataSource;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.jdbc.DurableSchema;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.InvalidSettingException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of the durable engine on the application's {@link DataSource} (or the one qualified
 * {@link DurableDataSource @DurableDataSource}): the {@link MachineRegistry} of the {@code @DurableMachine} beans,
 * durable's schema, the {@link DurableEngine} and its {@link DurableClient}, started and stopped with the context.
 * Every bean backs off when the application defines its own; {@code durable.enabled=false} turns it all off.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
        "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"})
@ConditionalOnClass(DurableEngine.class)
@ConditionalOnBooleanProperty(name = "durable.enabled", matchIfMissing = true)
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(DurableProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class DurableAutoConfiguration {

    DurableAutoConfiguration() {
    }

    // AnnotatedMachines and DurableEngineLifecycle are internal types: they back off for a bean of their name.
    @Bean
    @ConditionalOnMissingBean(name = "durableAnnotatedMachines")
    static AnnotatedMachines durableAnnotatedMachines(ConfigurableListableBeanFactory beanFactory) {
        return new AnnotatedMachines(beanFactory);
    }

    // Without the scan (replaced by name), the application brings its own registry; if it does not, the start
    // fails for want of a MachineRegistry rather than of an internal type.
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(AnnotatedMachines.class)
    MachineRegistry durableMachineRegistry(AnnotatedMachines machines, DurableProperties properties) {
        // A machine's @Retry leaves out what durable.retry.* says.
        try {
            return machines.registry(EngineSettingsMapper.retryPolicy(properties));
        } catch (InvalidSettingException e) {
            throw EngineSettingsMapper.translate(e, properties);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "durable.initialize-schema", matchIfMissing = true)
    DurableSchemaInitializer durableSchemaInitializer(ObjectProvider<DataSource> dataSources,
            @DurableDataSource ObjectProvider<DataSource> durableDataSource, ResourceLoader resourceLoader) {
        return new DurableSchemaInitializer(dataSource(dataSources, durableDataSource),
                resourceLoader.getClassLoader());
    }

    @Bean
    @ConditionalOnMissingBean
    DurableEngine durableEngine(DurableProperties properties, MachineRegistry machines,
            ObjectProvider<DataSource> dataSources, @DurableDataSource ObjectProvider<DataSource> durableDataSource,
            ObjectProvider<DurableSchemaInitializer> schemaInitializer, ObjectProvider<JsonCodec> codecs,
            ObjectProvider<JsonMapper> jsonMappers, ObjectProvider<DurableListener> listeners,
            ObjectProvider<DurableCustomizer> customizers, ObjectProvider<ObservationRegistry> observationRegistries,
            Environment environment) {
        try {
            EngineSettings.Builder settings =
                    EngineSettingsMapper.toBuilder(properties, Threading.VIRTUAL.isActive(environment));
            DurableEngine.Builder engine = DurableEngine.builder(dataSource(dataSources, durableDataSource), machines)
                    .jsonCodec(codec(codecs, jsonMappers));
            // Steps and the client's calls are observed where the application observes (docs/DESIGN.md, "Tracing").
            observationRegistries.ifUnique(engine::observationRegistry);
            customizers.orderedStream().forEach(customizer -> customizer.customize(settings, engine));
            engine.listener(CompositeDurableListener.of(listeners.orderedStream().toList()));
            EngineSettings built = settings.build();
            // The schema is installed before the engine exists, so it can never poll a missing table; and it is the
            // schema of the final settings, so a customizer that changes it moves the tables too.
            schemaInitializer.ifAvailable(initializer -> initializer.initialize(DurableSchema.named(built.schema())));
            return engine.settings(built).build();
        } catch (InvalidSettingException e) {
            throw EngineSettingsMapper.translate(e, properties);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    DurableClient durableClient(DurableEngine engine) {
        return engine.client();
    }

    // Checked in the background while the context runs, on a thread of its own; with no target, nothing runs
    // (docs/DESIGN.md, "Targets"). The engine is looked up at the first check: its listeners, the meters among them,
    // read these targets.
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(MachineRegistry.class)
    DurableTargets durableTargets(ObjectProvider<DurableEngine> engine, MachineRegistry machines,
            DurableProperties properties) {
        return new DurableTargets(() -> engine.getObject().client(), EngineSettingsMapper.targets(properties,
                machines), properties.getMetrics().getQueueDepthRefreshInterval());
    }

    @Bean
    @ConditionalOnMissingBean(name = "durableEngineLifecycle")
    DurableEngineLifecycle durableEngineLifecycle(DurableEngine engine, ObjectProvider<AnnotatedMachines> machines) {
        return new DurableEngineLifecycle(engine, machines.getIfAvailable());
    }

    private static DataSource dataSource(ObjectProvider<DataSource> dataSources,
            ObjectProvider<DataSource> durableDataSource) {
        DataSource qualified = durableDataSource.getIfAvailable();
        if (qualified != null) {
            return qualified;
        }
        DataSource unique = dataSources.getIfUnique();
        if (unique == null) {
            throw new IllegalStateException("durable cannot tell which DataSource to use: there are several and none"
                    + " is @Primary; mark one @Primary or qualify the one for durable with @DurableDataSource");
        }
        return unique;
    }

    private static JsonCodec codec(ObjectProvider<JsonCodec> codecs, ObjectProvider<JsonMapper> jsonMappers) {
        JsonCodec codec = codecs.getIfUnique();
        if (codec != null) {
            return codec;
        }
        @Nullable JsonMapper mapper = jsonMappers.getIfUnique();
        return mapper != null ? new JacksonJsonCodec(mapper) : new JacksonJsonCodec();
    }
}
