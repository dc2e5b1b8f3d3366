package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.boot.actuate.DurableEndpoint;
import dev.durable.boot.actuate.DurableEndpointWebExtension;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.NodeState;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link DurableEndpointAutoConfiguration}: the {@code durable} actuator endpoint and its web extension. */
class DurableEndpointAutoConfigurationTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create()
            .withUserConfiguration(TestMachines.Greeter.class);

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void endpointIsNotAvailableUnlessExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(DurableEndpoint.class));
    }

    @Test
    void endpointIsAvailableWithItsWebExtensionWhenExposedOverHttp() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=durable").run(context -> {
            assertThat(context).hasSingleBean(DurableEndpoint.class);
            assertThat(context).hasSingleBean(DurableEndpointWebExtension.class);
        });
    }

    @Test
    void aQueuesClusterWideLimitsAreShownWithTheirUse() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=durable",
                "durable.queues.default.cluster-concurrency=5", "durable.queues.default.cluster-rate=2000/1s")
                .run(context -> {
                    DurableEndpoint.LimitsDescriptor limits = context.getBean(DurableEndpoint.class).durable()
                            .queues().get("default").limits();
                    assertThat(limits).isNotNull();
                    assertThat(limits.concurrency()).isEqualTo(5);
                    assertThat(limits.rateStarts()).isEqualTo(2000);
                    assertThat(limits.rateWindow()).isEqualTo(java.time.Duration.ofSeconds(1));
                    assertThat(limits.executing()).isZero();
                });
        runner.withPropertyValues("management.endpoints.web.exposure.include=durable").run(context -> assertThat(
                context.getBean(DurableEndpoint.class).durable().queues().get("default").limits()).isNull());
    }

    @Test
    void endpointExposedOnlyOverJmxHasNoWebExtension() {
        runner.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=durable")
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableEndpoint.class);
                    assertThat(context).doesNotHaveBean(DurableEndpointWebExtension.class);
                });
    }

    @Test
    void isOffWhenDurableIsDisabled() {
        runner.withPropertyValues("durable.enabled=false", "management.endpoints.web.exposure.include=durable")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DurableEndpoint.class);
                    assertThat(context).doesNotHaveBean(DurableEndpointWebExtension.class);
                });
    }

    @Test
    void theEngineRunsWithoutActuatorOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                .withPropertyValues("management.endpoints.web.exposure.include=durable")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
                    assertThat(context).doesNotHaveBean(DurableEndpoint.class);
                    assertThat(context).doesNotHaveBean(DurableEndpointWebExtension.class);
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=durable")
                .withBean("userEndpoint", DurableEndpoint.class,
                        () -> new DurableEndpoint(org.mockito.Mockito.mock(DurableEngine.class), Show.NEVER, Set.of()))
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableEndpoint.class);
                    assertThat(context.getBean(DurableEndpoint.class)).isSameAs(context.getBean("userEndpoint"));
                    assertThat(context).hasSingleBean(DurableEndpointWebExtension.class);
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnWebExtension() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=durable")
                .withBean("userExtension", DurableEndpointWebExtension.class,
                        () -> new DurableEndpointWebExtension(new DurableEndpoint(org.mockito.Mockito.mock(
                                DurableEngine.class), Show.NEVER, Set.of())))
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableEndpointWebExtension.class);
                    assertThat(context.getBean(DurableEndpointWebExtension.class))
                            .isSameAs(context.getBean("userExtension"));
                });
    }
}
