package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.boot.actuate.DurableMetrics;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.NodeState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link DurableMetricsAutoConfiguration}: the engine's meters, bound when the application has a meter registry. */
class DurableMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create()
            .withUserConfiguration(TestMachines.Greeter.class);

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void registersMetricsWhenThereIsAMeterRegistry() {
        runner.withBean(SimpleMeterRegistry.class).run(context -> {
            assertThat(context).hasSingleBean(DurableMetrics.class);
            DurableMetrics metrics = context.getBean(DurableMetrics.class);
            metrics.bindTo(context.getBean(MeterRegistry.class));
            assertThat(context.getBean(MeterRegistry.class).find("durable.claims").gauge()).isNotNull();
        });
    }

    @Test
    void aQueueWithClusterWideLimitsHasItsMetersAndOneWithoutHasNone() {
        runner.withBean(SimpleMeterRegistry.class).withPropertyValues("durable.queues.default.cluster-concurrency=5",
                "durable.queues.default.cluster-rate=2000/1s").run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    context.getBean(DurableMetrics.class).bindTo(registry);
                    assertThat(registry.find("durable.queue.cluster.executing").tag("queue", "default").gauge())
                            .isNotNull();
                    assertThat(registry.find("durable.queue.cluster.tokens").tag("queue", "default").gauge())
                            .isNotNull();
                    assertThat(registry.find("durable.queue.held.back").tag("queue", "default").functionCounter())
                            .isNotNull();
                });
        runner.withBean(SimpleMeterRegistry.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(DurableMetrics.class).bindTo(registry);
            assertThat(registry.find("durable.queue.cluster.executing").gauge()).isNull();
            assertThat(registry.find("durable.queue.held.back").functionCounter()).isNull();
        });
    }

    @Test
    void registersNoMetricsWithoutAMeterRegistry() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DurableMetrics.class);
        });
    }

    @Test
    void theEngineRunsWithoutMicrometerOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
            assertThat(context).doesNotHaveBean(DurableMetrics.class);
        });
    }

    @Test
    void isOffWhenDurableIsDisabled() {
        runner.withBean(SimpleMeterRegistry.class).withPropertyValues("durable.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DurableMetrics.class);
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnMetrics() {
        runner.withBean(SimpleMeterRegistry.class)
                .withBean("userMetrics", DurableMetrics.class,
                        () -> org.mockito.Mockito.mock(DurableMetrics.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableMetrics.class);
                    assertThat(context.getBean(DurableMetrics.class)).isSameAs(context.getBean("userMetrics"));
                });
    }
}
