package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Annotated upcasters and former step names (docs/DESIGN.md, "Upcasting"): {@code @Upcast} methods become the machine's
 * upcasters and {@code @Step(formerNames)} its former step names, so rows stored by an older version run on the
 * current one; {@code durable.lossy-state} says what becomes of a row that would lose data.
 */
class UpcastingAutoConfigurationTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    /** A row as version 1 of the greeter stored it: its state's name was 'who', its step 'hello'. */
    private static long storedByVersion1() {
        return TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance (machine,"
                + " machine_version, step, state, queue) VALUES ('greeter', 1, 'hello', '{\"who\": \"Ada\"}',"
                + " 'default') RETURNING id", Long.class);
    }

    @Test
    void aRowOfVersion1RunsUpcastAndRenamedOnTheAnnotatedVersion3() {
        runner.withUserConfiguration(TestMachines.UpcastingGreeter.class).run(context -> {
            MachineDefinition greeter = context.getBean(MachineRegistry.class).resolve("greeter", null);
            assertThat(greeter.upcasters().keySet()).containsExactly(1, 2);
            assertThat(greeter.formerStepNames()).containsOnlyKeys("hello", "salute");
            long id = storedByVersion1();

            await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
            DurableClient client = context.getBean(DurableClient.class);
            assertThat(client.find(id).orElseThrow().result(String.class)).isEqualTo("v3 greet Ada");
            assertThat(client.find(id).orElseThrow().version()).isEqualTo(3);
        });
    }

    @Test
    void theLossyStateSettingIsAProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class).withPropertyValues("durable.lossy-state=fail")
                .run(context -> {
                    assertThat(context.getBean(DurableEngine.class).settings().lossyState())
                            .isEqualTo(EngineSettings.LossyState.FAIL);
                    long id = TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA
                            + ".durable_instance (machine, machine_version, step, state, queue) VALUES ('greeter', 1,"
                            + " 'greet', '{\"value\": \"Ada\", \"title\": \"Countess\"}', 'default') RETURNING id",
                            Long.class);
                    await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
                    assertThat(context.getBean(DurableClient.class).find(id).orElseThrow().lastError())
                            .contains("would lose [$.title]");
                });
        runner.withUserConfiguration(TestMachines.Greeter.class).run(context -> {
            long id = TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA
                    + ".durable_instance (machine, machine_version, step, state, queue) VALUES ('greeter', 1,"
                    + " 'greet', '{\"value\": \"Ada\", \"title\": \"Countess\"}', 'default') RETURNING id",
                    Long.class);
            DurableClient client = context.getBean(DurableClient.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> client.find(id).orElseThrow().status()
                    == InstanceStatus.SUSPENDED);
        });
    }

    /** The methods durable calls through handles, declared for a native image: the upcasters among them. */
    @Test
    void theUpcastMethodsAreAmongTheMethodsDurableCalls() {
        runner.withUserConfiguration(TestMachines.UpcastingGreeter.class).run(context -> {
            AnnotatedMachines machines = new AnnotatedMachines(context.getBeanFactory());
            machines.registry();
            assertThat(machines.methods()).extracting(java.lang.reflect.Method::getName)
                    .contains("greet", "fromWho", "unchanged");
            assertThat(Arrays.asList(TestMachines.UpcastingGreeter.class.getDeclaredMethods()))
                    .extracting(java.lang.reflect.Method::getName).contains("fromWho");
        });
    }
}
