package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.boot.actuate.DurableHealthIndicator;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.NodeState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@link DurableHealthContributorAutoConfiguration}: the node's health indicator. */
class DurableHealthContributorAutoConfigurationTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create()
            .withUserConfiguration(TestMachines.Greeter.class);

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void contributesTheNodesHealthIndicator() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(DurableHealthIndicator.class);
            assertThat(context.getBean(DurableHealthIndicator.class).health().getDetails())
                    .containsEntry("state", "running");
        });
    }

    @Test
    void isOffWhenTheDurableHealthIndicatorIsDisabled() {
        runner.withPropertyValues("management.health.durable.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(DurableHealthIndicator.class));
    }

    @Test
    void isOffWhenDurableIsDisabled() {
        runner.withPropertyValues("durable.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DurableHealthIndicator.class);
        });
    }

    @Test
    void theEngineRunsWithoutSpringBootHealthOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
            assertThat(context).doesNotHaveBean(DurableHealthIndicator.class);
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnHealthIndicator() {
        runner.withUserConfiguration(UserHealthConfiguration.class).run(context -> {
            assertThat(context).hasSingleBean(DurableHealthIndicator.class);
            assertThat(context.getBean(DurableHealthIndicator.class))
                    .isSameAs(context.getBean(UserHealthConfiguration.class).indicator);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserHealthConfiguration {

        volatile DurableHealthIndicator indicator;

        @Bean
        DurableHealthIndicator durableHealthIndicator(DurableEngine engine) {
            indicator = new DurableHealthIndicator(engine);
            return indicator;
        }
    }
}
