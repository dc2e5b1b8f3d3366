package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.DurableClient;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.NodeState;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Every bean of {@link DurableAutoConfiguration} backs off when the application defines its own (the beans of the
 * metrics, health and endpoint auto-configurations back off in their own tests).
 */
class DurableBackOffTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnEngine() {
        runner.withUserConfiguration(UserEngineConfiguration.class).run(context -> {
            assertThat(context).hasSingleBean(DurableEngine.class);
            assertThat(context.getBean(DurableEngine.class)).isSameAs(context.getBean("userEngine"));
            assertThat(context.getBean(DurableClient.class)).isSameAs(context.getBean(DurableEngine.class).client());
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnClient() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean("userClient", DurableClient.class, () -> org.mockito.Mockito.mock(DurableClient.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableClient.class);
                    assertThat(context.getBean(DurableClient.class)).isSameAs(context.getBean("userClient"));
                    assertThat(context).hasSingleBean(DurableEngine.class);
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnRegistry() {
        MachineDefinition own = MachineDefinition.builder("own", 3, String.class)
                .step("only", (state, ctx) -> dev.durable.Outcome.done()).build();
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean("userRegistry", MachineRegistry.class, () -> MachineRegistry.of(own))
                .run(context -> {
                    assertThat(context).hasSingleBean(MachineRegistry.class);
                    assertThat(context.getBean(DurableEngine.class).machines().all())
                            .extracting(MachineDefinition::describe).containsExactly("own v3");
                });
    }

    @Test
    void annotatedMachinesBackOffForABeanOfTheSameName() {
        // The scan of @DurableMachine beans is internal: an application that defines its own machines replaces it
        // by its name, and no bean it does not know is read as a machine.
        MachineDefinition own = MachineDefinition.builder("own", 3, String.class)
                .step("only", (state, ctx) -> dev.durable.Outcome.done()).build();
        runner.withUserConfiguration(TestMachines.Greeter.class, TestMachines.TwoInitial.class)
                .withBean("durableAnnotatedMachines", String.class, () -> "scanned by the application")
                .withBean("userRegistry", MachineRegistry.class, () -> MachineRegistry.of(own))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("durableAnnotatedMachines")).isEqualTo("scanned by the application");
                    assertThat(context).doesNotHaveBean(AnnotatedMachines.class);
                    DurableEngine engine = context.getBean(DurableEngine.class);
                    assertThat(engine.machines().all()).extracting(MachineDefinition::describe)
                            .containsExactly("own v3");
                    assertThat(engine.state()).isEqualTo(NodeState.RUNNING);
                });
    }

    @Test
    void withoutTheAnnotatedMachinesNorARegistryStartupFailsNamingTheMissingRegistry() {
        runner.withBean("durableAnnotatedMachines", String.class, () -> "scanned by the application")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining(MachineRegistry.class.getName()));
    }

    @Test
    void engineLifecycleBacksOffForABeanOfTheSameName() {
        // An application may start and stop the engine on its own terms.
        OwnLifecycle own = new OwnLifecycle();
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean("durableEngineLifecycle", OwnLifecycle.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("durableEngineLifecycle")).isSameAs(own);
                    assertThat(context).doesNotHaveBean(DurableEngineLifecycle.class);
                    assertThat(own.isRunning()).isTrue();
                    assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.STARTING);
                });
    }

    /** The application's own lifecycle bean; it leaves the engine alone. */
    static class OwnLifecycle implements SmartLifecycle {

        private volatile boolean running;

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserEngineConfiguration {
        @Bean
        DurableEngine userEngine(DataSource dataSource) {
            return DurableEngine.builder(dataSource, MachineRegistry.of())
                    .settings(EngineSettings.builder().schema(TestDatabase.SCHEMA).build()).build();
        }
    }
}
