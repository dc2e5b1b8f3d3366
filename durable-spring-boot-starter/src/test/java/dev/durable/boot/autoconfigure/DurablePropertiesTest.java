package dev.durable.boot.autoconfigure;

import static dev.durable.boot.autoconfigure.AutoConfigurationRunner.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code durable.*} properties: their defaults, their mapping onto the engine's settings, invalid values. */
class DurablePropertiesTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void propertyDefaultsAreTheEngineDefaults() {
        DurableProperties properties = bind(Map.of());
        EngineSettings mapped = EngineSettingsMapper.toBuilder(properties, false).nodeName("n").build();
        assertThat(mapped).isEqualTo(EngineSettings.builder().nodeName("n").build());
        assertThat(properties.isEnabled()).isTrue();
        assertThat(properties.isInitializeSchema()).isTrue();
        assertThat(properties.getNodeName()).isNull();
        assertThat(properties.getStepTimeout()).isNull();

        DurableProperties.Queue onlyConcurrency = bind(Map.of("durable.queues.mail.concurrency", "3"))
                .getQueues().get("mail");
        assertThat(onlyConcurrency.getBatchSize()).isEqualTo(QueueSettings.DEFAULT_BATCH_SIZE);
        DurableProperties.Queue onlyBatch = bind(Map.of("durable.queues.mail.batch-size", "7")).getQueues().get("mail");
        assertThat(onlyBatch.getConcurrency()).isEqualTo(QueueSettings.DEFAULT_CONCURRENCY);
    }

    @Test
    void propertiesAreMappedOntoTheEngineSettings() {
        runner.withUserConfiguration(TestMachines.Mailer.class)
                .withPropertyValues("durable.lease-ttl=90s", "durable.heartbeat-interval=25s",
                        "durable.queues.mail.concurrency=3", "durable.queues.mail.batch-size=7",
                        "durable.step-timeout=5m", "durable.max-zombies=0")
                .run(context -> {
                    EngineSettings settings = context.getBean(DurableEngine.class).settings();
                    assertThat(settings.leaseTtl()).isEqualTo(Duration.ofSeconds(90));
                    assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(25));
                    assertThat(settings.queue("mail")).isEqualTo(new QueueSettings(3, 7));
                    assertThat(settings.queue("default")).isEqualTo(QueueSettings.defaults());
                    assertThat(settings.stepTimeout()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(settings.maxZombies()).isZero();
                    assertThat(settings.nodeName()).isEqualTo("test-node");
                });
    }

    @Test
    void heartbeatOfMoreThanAThirdOfTheLeaseFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.lease-ttl=30s", "durable.heartbeat-interval=20s")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.heartbeat-interval' (value 'PT20S')",
                        "more than a third of durable.lease-ttl"));
    }

    @Test
    void negativeConcurrencyFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.concurrency=-1")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.default.concurrency' (value '-1')", "must not be negative"));
    }

    @Test
    void machineOnAnUnconfiguredQueueFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Mailer.class)
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.mail'", "machine mailer v1",
                        TestMachines.Mailer.class.getName(), "runs on queue 'mail', which is not configured"));
    }

    @Test
    void invalidSchemaNameFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.schema=Bad-Name")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.schema' (value 'Bad-Name')"));
    }

    @Test
    void failureAnalysisNamesThePropertyAndItsValue() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.concurrency=-1")
                .run(context -> {
                    FailureAnalysis analysis = new InvalidDurablePropertyFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("Property: durable.queues.default.concurrency")
                            .contains("Value: -1").contains("must not be negative");
                    assertThat(analysis.getAction()).contains("durable.queues.default.concurrency");
                });
    }

    private static DurableProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("durable", DurableProperties.class);
    }
}
