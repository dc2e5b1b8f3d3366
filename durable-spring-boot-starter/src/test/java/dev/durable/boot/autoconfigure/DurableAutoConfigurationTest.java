package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.MissPolicy;
import dev.durable.SignalResult;
import dev.durable.Schedule;
import dev.durable.StoredSchedule;
import dev.durable.boot.DurableCustomizer;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.NodeState;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link DurableAutoConfiguration}: a running engine with its client and machines, and how it adapts to the
 * application (its back-offs are in {@link DurableBackOffTest}).
 */
class DurableAutoConfigurationTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void autoConfiguresARunningEngineWithItsClientAndTheAnnotatedMachines() {
        runner.withUserConfiguration(TestMachines.Greeter.class).run(context -> {
            assertThat(context).hasNotFailed();
            DurableEngine engine = context.getBean(DurableEngine.class);
            assertThat(context.getBean(DurableClient.class)).isSameAs(engine.client());
            assertThat(context.getBean(MachineRegistry.class).all()).extracting(MachineDefinition::describe)
                    .containsExactly("greeter v1");
            assertThat(engine.state()).isEqualTo(NodeState.RUNNING);
            assertThat(engine.settings().schema()).isEqualTo(TestDatabase.SCHEMA);
        });
    }

    @Test
    void theEngineStopsAndStartsAgainWithTheContext() {
        // Spring's test framework does this too: it stops a cached context while other test classes run and
        // starts it again when one needs it.
        runner.withUserConfiguration(TestMachines.Greeter.class).run(context -> {
            DurableEngine engine = context.getBean(DurableEngine.class);
            context.getSourceApplicationContext().stop();
            assertThat(engine.state()).isEqualTo(NodeState.STOPPED);
            DurableClient durable = context.getBean(DurableClient.class);
            long id = durable.start(TestMachines.Greeter.class, new TestMachines.Name("again")).id();

            context.getSourceApplicationContext().start();
            assertThat(engine.state()).isIn(NodeState.RUNNING, NodeState.DEGRADED);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> TestDatabase.status(id).equals("done"));
        });
    }

    @Test
    void machineDefinitionNamesTheBeanAndUsesTheUserClass() {
        runner.withUserConfiguration(TestMachines.Greeter.class).run(context -> {
            MachineDefinition greeter = context.getBean(MachineRegistry.class).resolve("greeter", null);
            assertThat(greeter.machineClass()).isEqualTo(TestMachines.Greeter.class);
            assertThat(greeter.source()).contains("bean '").contains(TestMachines.Greeter.class.getName());
            assertThat(greeter.stateType()).isEqualTo(TestMachines.Name.class);
            assertThat(greeter.initialStep()).isEqualTo("greet");
        });
    }

    /** Declared schedules reach the definition, placeholders resolved, and the node writes them at its start. */
    @Test
    void schedulesDeclaredOnAMachineAreWrittenWhenTheNodeStarts() {
        runner.withUserConfiguration(TestMachines.Reporter.class)
                .withPropertyValues("test.nightly.cron=0 30 1 * * *")
                .run(context -> {
                    MachineDefinition reporter = context.getBean(MachineRegistry.class).resolve("reporter", null);
                    assertThat(reporter.schedules()).containsExactly(
                            Schedule.cron("nightly", "0 30 1 * * *").zone("Europe/Berlin"),
                            Schedule.cron("weekly", "@weekly").missPolicy(MissPolicy.SKIP));
                    DurableClient client = context.getBean(DurableClient.class);
                    await().atMost(Duration.ofSeconds(10)).until(() -> client.schedules().size() == 2);
                    StoredSchedule nightly = client.findSchedule("nightly").orElseThrow();
                    assertThat(nightly.declared()).isTrue();
                    assertThat(nightly.machine()).isEqualTo("reporter");
                    assertThat(nightly.cron()).isEqualTo("0 30 1 * * *");
                    assertThat(nightly.nextFireAt().atZone(ZoneId.of("Europe/Berlin")).toLocalTime())
                            .isEqualTo(LocalTime.of(1, 30));
                });
    }

    /**
     * Declared signals reach the definition, placeholders resolved, and the client refuses an undeclared one and a
     * payload that does not bind; the step reads the awaited payload typed (docs/DESIGN.md, "Declared signals").
     */
    @Test
    void signalsDeclaredOnAMachineAreCheckedAtTheCallAndReadTyped() {
        runner.withUserConfiguration(TestMachines.Signalled.class, TestMachines.Deaf.class)
                .withPropertyValues("test.signal.name=nudge")
                .run(context -> {
                    MachineRegistry machines = context.getBean(MachineRegistry.class);
                    MachineDefinition signalled = machines.resolve("signalled", null);
                    assertThat(signalled.signals()).containsExactly(
                            java.util.Map.entry("named", TestMachines.Name.class),
                            java.util.Map.entry("nudge", MachineDefinition.NO_PAYLOAD));
                    MachineDefinition deaf = machines.resolve("deaf", null);
                    assertThat(deaf.declaresSignals()).isTrue();
                    assertThat(deaf.signals()).isEmpty();

                    DurableClient durable = context.getBean(DurableClient.class);
                    long id = durable.start(TestMachines.Signalled.class, new TestMachines.Name("x")).id();
                    assertThat(durable.signal(id, "nmaed", new TestMachines.Name("y")).delivery())
                            .isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
                    assertThat(durable.signal(id, "named", java.util.Map.of("value", "y", "extra", 1)).delivery())
                            .isEqualTo(SignalResult.Delivery.REFUSED_WRONG_PAYLOAD);
                    assertThat(durable.signal(id, "named", java.util.Map.of("value", "y")).delivery())
                            .isEqualTo(SignalResult.Delivery.DELIVERED);
                    await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
                    assertThat(durable.find(id).orElseThrow().result(TestMachines.Name.class))
                            .isEqualTo(new TestMachines.Name("y"));
                });
    }

    @Test
    void stepsOfAProxiedMachineBeanRunThroughTheProxy() {
        runner.withUserConfiguration(TestMachines.TransactionalMachine.class).run(context -> {
            Object bean = context.getBean(TestMachines.TransactionalMachine.class);
            assertThat(org.springframework.aop.support.AopUtils.isCglibProxy(bean)).isTrue();
            DurableClient durable = context.getBean(DurableClient.class);
            long id = durable.start(TestMachines.TransactionalMachine.class, new TestMachines.Name("x")).id();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> TestDatabase.status(id).equals("done"));
            assertThat(durable.find(id).orElseThrow().resultJson()).isEqualTo("{\"inTransaction\": true}");
        });
    }

    @Test
    void isOffWhenDurableIsDisabled() {
        runner.withUserConfiguration(TestMachines.Greeter.class).withPropertyValues("durable.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DurableEngine.class);
                    assertThat(context).doesNotHaveBean(DurableClient.class);
                    assertThat(context).doesNotHaveBean(MachineRegistry.class);
                    assertThat(context).doesNotHaveBean(DurableSchemaInitializer.class);
                    assertThat(context).doesNotHaveBean(DurableEngineLifecycle.class);
                });
    }

    @Test
    void theEngineRunsWithoutActuatorNorMicrometerOnTheClasspath() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                        "org.springframework.boot.health", "io.micrometer"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
                });
    }

    @Test
    void twoVersionsOfOneMachineCoexistAndTheHighestIsUsedForNewInstances() {
        runner.withUserConfiguration(TestMachines.Greeter.class, TestMachines.GreeterV2.class).run(context -> {
            assertThat(context).hasNotFailed();
            MachineRegistry registry = context.getBean(MachineRegistry.class);
            assertThat(registry.all()).extracting(MachineDefinition::describe)
                    .containsExactly("greeter v1", "greeter v2");
            assertThat(registry.resolve(TestMachines.Greeter.class, null).version()).isEqualTo(2);
        });
    }

    @Test
    void customizersAreAppliedInOrder() {
        runner.withUserConfiguration(TestMachines.Greeter.class, CustomizerConfiguration.class).run(context -> {
            EngineSettings settings = context.getBean(DurableEngine.class).settings();
            assertThat(settings.reaperBatchSize()).isEqualTo(20);
        });
    }

    @Test
    void statesAreWrittenWithTheApplicationsJsonMapper() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean(JsonMapper.class, () -> JsonMapper.builder()
                        .propertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE).build())
                .withPropertyValues("durable.queues.default.concurrency=0")
                .run(context -> {
                    long id = context.getBean(DurableClient.class)
                            .start(TestMachines.Greeter.class, new TestMachines.Name("Ada")).id();
                    String state = TestDatabase.jdbc().queryForObject("SELECT state::text FROM "
                            + TestDatabase.SCHEMA + ".durable_instance WHERE id = ?", String.class, id);
                    assertThat(state).isEqualTo("{\"Value\": \"Ada\"}");
                });
    }

    @Test
    void stepsRunOnVirtualThreadsWhenSpringSaysSoAndTheJvmHasThem() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("spring.threads.virtual.enabled=true")
                .run(context -> assertThat(context.getBean(DurableEngine.class).settings().virtualThreads())
                        .isEqualTo(Runtime.version().feature() >= 21));
    }

    @Test
    void usesTheDataSourceQualifiedForDurable() {
        runner.withUserConfiguration(TestMachines.Greeter.class, TwoDataSourcesConfiguration.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(TwoDataSourcesConfiguration.class).durableUsed).isTrue();
                });
    }

    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "installs the schema through the application's DataSource, which goes through a"
                    + " transaction pooler here: see Connection poolers in docs/DESIGN.md")
    void initializesTheSchemaUnlessToldNotTo() {
        runner.withUserConfiguration(TestMachines.Greeter.class).withPropertyValues("durable.schema=durable_fresh")
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableSchemaInitializer.class);
                    assertThat(dev.durable.jdbc.DurableSchema.named("durable_fresh")
                            .isInstalled(context.getBean(DataSource.class))).isTrue();
                });
        runner.withUserConfiguration(TestMachines.Greeter.class).withPropertyValues("durable.initialize-schema=false")
                .run(context -> assertThat(context).doesNotHaveBean(DurableSchemaInitializer.class));
    }

    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "installs the schema through the application's DataSource, which goes through a"
                    + " transaction pooler here: see Connection poolers in docs/DESIGN.md")
    void withoutLiquibaseStartupFailsNamingThePropertyUnlessTheSchemaIsLeftToTheApplication() {
        ApplicationContextRunner withoutLiquibase = runner.withUserConfiguration(TestMachines.Greeter.class)
                .withClassLoader(new FilteredClassLoader("liquibase"));
        withoutLiquibase.run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("durable.initialize-schema is true but Liquibase is not on the classpath")
                .hasMessageContaining("dev/durable/db/V1__durable_schema.sql"));
        withoutLiquibase.withPropertyValues("durable.initialize-schema=false")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "installs the schema through the application's DataSource, which goes through a"
                    + " transaction pooler here: see Connection poolers in docs/DESIGN.md")
    void theSchemaIsInitializedWhereACustomizerPutsTheEngine() {
        TestDatabase.jdbc(); // the test database is up
        dev.durable.test.postgres.TestPostgres.get().dropSchema("durable_customized");
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean(DurableCustomizer.class, () -> (settings, engine) -> settings.schema("durable_customized"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DurableEngine.class).settings().schema())
                            .isEqualTo("durable_customized");
                    assertThat(dev.durable.jdbc.DurableSchema.named("durable_customized")
                            .isInstalled(context.getBean(DataSource.class))).isTrue();
                    assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerConfiguration {
        @Bean
        @Order(2)
        DurableCustomizer second() {
            return (settings, engine) -> settings.reaperBatchSize(20);
        }

        @Bean
        @Order(1)
        DurableCustomizer first() {
            return (settings, engine) -> settings.reaperBatchSize(10);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSourcesConfiguration {

        volatile boolean durableUsed;

        @Bean
        @org.springframework.context.annotation.Primary
        DataSource appDataSource() {
            return dev.durable.test.postgres.TestPostgres.get().newDataSource("app", 2);
        }

        @Bean
        @dev.durable.boot.DurableDataSource
        DataSource durableDataSource() {
            DataSource target = dev.durable.test.postgres.TestPostgres.get().newDataSource("durable", 4);
            return new org.springframework.jdbc.datasource.DelegatingDataSource(target) {
                @Override
                public java.sql.Connection getConnection() throws java.sql.SQLException {
                    durableUsed = true;
                    return super.getConnection();
                }
            };
        }
    }
}
