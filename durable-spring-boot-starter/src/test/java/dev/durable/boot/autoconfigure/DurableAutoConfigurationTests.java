package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.DurableClient;
import dev.durable.boot.DurableCustomizer;
import dev.durable.boot.actuate.DurableEndpoint;
import dev.durable.boot.actuate.DurableHealthIndicator;
import dev.durable.boot.actuate.DurableMetrics;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.NodeState;
import dev.durable.runtime.QueueSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

class DurableAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    JacksonAutoConfiguration.class, DurableAutoConfiguration.class,
                    DurableMetricsAutoConfiguration.class, DurableHealthContributorAutoConfiguration.class,
                    DurableEndpointAutoConfiguration.class))
            .withPropertyValues(TestDatabase.properties());

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
            assertThat(context).hasSingleBean(DurableHealthIndicator.class);
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
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean(SimpleMeterRegistry.class)
                .withPropertyValues("durable.enabled=false", "management.endpoints.web.exposure.include=durable")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DurableEngine.class);
                    assertThat(context).doesNotHaveBean(DurableClient.class);
                    assertThat(context).doesNotHaveBean(MachineRegistry.class);
                    assertThat(context).doesNotHaveBean(DurableMetrics.class);
                    assertThat(context).doesNotHaveBean(DurableHealthIndicator.class);
                    assertThat(context).doesNotHaveBean(DurableEndpoint.class);
                    assertThat(context).doesNotHaveBean(DurableSchemaInitializer.class);
                });
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
    void backsOffWhenTheApplicationDefinesItsOwnHealthIndicatorAndEndpoint() {
        runner.withUserConfiguration(TestMachines.Greeter.class, UserActuatorConfiguration.class)
                .withPropertyValues("management.endpoints.web.exposure.include=durable")
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableHealthIndicator.class);
                    assertThat(context.getBean(DurableHealthIndicator.class))
                            .isSameAs(context.getBean("durableHealthIndicator"));
                    assertThat(context).hasSingleBean(DurableEndpoint.class);
                    assertThat(context.getBean(DurableEndpoint.class)).isSameAs(context.getBean("userEndpoint"));
                });
    }

    @Test
    void worksWithoutActuatorOnTheClasspath() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                        "org.springframework.boot.health"))
                .withPropertyValues("management.endpoints.web.exposure.include=durable")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
                    assertThat(context).doesNotHaveBean(DurableHealthIndicator.class);
                    assertThat(context).doesNotHaveBean(DurableEndpoint.class);
                });
    }

    @Test
    void worksWithoutMicrometerOnTheClasspath() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DurableEngine.class).state()).isEqualTo(NodeState.RUNNING);
                    assertThat(context).doesNotHaveBean(DurableMetrics.class);
                });
    }

    @Test
    void registersMetricsWhenThereIsAMeterRegistry() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withBean(SimpleMeterRegistry.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(DurableMetrics.class);
                    DurableMetrics metrics = context.getBean(DurableMetrics.class);
                    metrics.bindTo(context.getBean(MeterRegistry.class));
                    assertThat(context.getBean(MeterRegistry.class).find("durable.steps.in.flight").gauge())
                            .isNotNull();
                });
    }

    @Test
    void endpointIsNotAvailableUnlessExposed() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .run(context -> assertThat(context).doesNotHaveBean(DurableEndpoint.class));
    }

    @Test
    void endpointIsAvailableWhenExposed() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("management.endpoints.web.exposure.include=durable")
                .run(context -> assertThat(context).hasSingleBean(DurableEndpoint.class));
    }

    @Test
    void duplicateNameAndVersionFailsStartupNamingBothBeans() {
        runner.withUserConfiguration(TestMachines.Greeter.class, TestMachines.OtherGreeter.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "greeter v1 is defined twice", TestMachines.Greeter.class.getName(),
                        TestMachines.OtherGreeter.class.getName()));
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
    void stepReturningVoidFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.VoidStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "@Step method " + TestMachines.VoidStep.class.getName() + ".greet(Name)",
                        "returns void; it must return dev.durable.Outcome"));
    }

    @Test
    void stepTakingTwoStatesFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.TwoStates.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.TwoStates.class.getName() + ".greet(Name, String)", "has two state parameters"));
    }

    @Test
    void privateStepFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.PrivateStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.PrivateStep.class.getName() + ".greet(Name)",
                        "must be neither static nor private"));
    }

    @Test
    void stepTakingAnExceptionFailsStartup() {
        runner.withUserConfiguration(TestMachines.ExceptionInStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "greet(Name, Exception)", "only @OnError methods receive exceptions"));
    }

    @Test
    void methodsDisagreeingOnTheStateTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TestMachines.DisagreeingStates.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "disagree on the state type", "first(Name)", "second(String)"));
    }

    @Test
    void stepNameDeclaredTwiceFailsStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.StepTwice.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "Step 'greet' of machine twice v1 is declared twice", "greet(Name)", "greetAgain(Name)"));
    }

    @Test
    void missingInitialStepFailsStartup() {
        runner.withUserConfiguration(TestMachines.NoInitial.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "no-initial v1", "declares 2 steps but none is initial"));
    }

    @Test
    void twoInitialStepsFailStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.TwoInitial.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "declares two initial steps", ".a(Name)", ".b(Name)"));
    }

    @Test
    void twoErrorHandlersForOneExceptionTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TestMachines.TwoHandlersForOneType.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "two @OnError methods for java.lang.IllegalStateException", "first(IllegalStateException)",
                        "second(IllegalStateException, Name)"));
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

    private static void assertStartupFailure(AssertableApplicationContext context,
            Class<? extends Throwable> cause, String... fragments) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        Throwable found = failure;
        while (found != null && !cause.isInstance(found)) {
            found = found.getCause();
        }
        assertThat(found).as("a %s in the causes of %s", cause.getSimpleName(), failure).isNotNull();
        assertThat(found.getMessage()).contains(fragments);
    }

    private static DurableProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("durable", DurableProperties.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class UserEngineConfiguration {
        @Bean
        DurableEngine userEngine(DataSource dataSource) {
            return DurableEngine.builder(dataSource, MachineRegistry.of())
                    .settings(EngineSettings.builder().schema(TestDatabase.SCHEMA).build()).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserActuatorConfiguration {
        @Bean
        DurableHealthIndicator durableHealthIndicator(DurableEngine engine) {
            return new DurableHealthIndicator(engine);
        }

        @Bean
        DurableEndpoint userEndpoint(DurableEngine engine) {
            return new DurableEndpoint(engine, org.springframework.boot.actuate.endpoint.Show.NEVER,
                    java.util.Set.of());
        }
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
