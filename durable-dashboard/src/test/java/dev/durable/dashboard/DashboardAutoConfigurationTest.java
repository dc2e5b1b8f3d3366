package dev.durable.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * When the dashboard is served (docs/DESIGN.md, "Dashboard"): only when enabled, in a servlet web application with a
 * durable engine; a path it cannot serve under is refused at startup, naming the property.
 */
class DashboardAutoConfigurationTest {

    private static DurableEngine engine() {
        return DurableEngine.builder(DashboardDatabase.DATABASE.dataSource(), MachineRegistry.of(
                MachineDefinition.builder("one", 1, String.class).step("only", (state, ctx) -> Outcome.done(null))
                        .build())).build();
    }

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DashboardAutoConfiguration.class))
            .withBean(DurableEngine.class, DashboardAutoConfigurationTest::engine);

    @Test
    void offUnlessEnabled() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardController.class));
        web.withPropertyValues("durable.dashboard.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(DashboardController.class));
    }

    @Test
    void notServedWithoutAServletWebApplicationOrAnEngine() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DashboardAutoConfiguration.class))
                .withBean(DurableEngine.class, DashboardAutoConfigurationTest::engine)
                .withPropertyValues("durable.dashboard.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardController.class));
        new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(DashboardAutoConfiguration.class))
                .withPropertyValues("durable.dashboard.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardController.class));
    }

    @Test
    void aPathItCannotServeUnderIsRefusedNamingTheProperty() {
        web.withPropertyValues("durable.dashboard.enabled=true", "durable.dashboard.path=durable/")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining(
                        "durable.dashboard.path must start with '/', not end with one and hold no pattern,"
                                + " e.g. /durable; was 'durable/'"));
    }
}
