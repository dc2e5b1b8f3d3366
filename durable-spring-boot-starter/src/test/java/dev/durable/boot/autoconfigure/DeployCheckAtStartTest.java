package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.boot.actuate.DurableHealthIndicator;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineTestHooks;
import dev.durable.runtime.NodeState;
import java.time.Duration;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code durable.deploy-check} in an application (docs/DESIGN.md, "The deploy check"): with {@code fail} the
 * application starts, but its engine picks nothing and its health says why; {@code warn} is the default.
 */
class DeployCheckAtStartTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create()
            .withUserConfiguration(TestMachines.Greeter.class);

    private long atMissingStep;
    private long runnable;

    @BeforeEach
    void instancesInFlight() {
        TestDatabase.clean();
        // The greeter's new code has no step 'wave' any more; an instance still waits at it.
        atMissingStep = insert("wave");
        runnable = insert("greet");
    }

    @Test
    void failKeepsTheEngineFromPickingWhileTheApplicationStartsAndItsHealthSaysWhy() {
        runner.withPropertyValues("durable.deploy-check=fail").run(context -> {
            assertThat(context).hasNotFailed();
            DurableEngine engine = context.getBean(DurableEngine.class);
            assertThat(engine.settings().deployCheck()).isEqualTo(DeployCheck.Mode.FAIL);
            assertThat(engine.state()).isEqualTo(NodeState.RUNNING);
            assertThat(engine.heldByDeployCheck()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.lastDeployCheck().isPresent());
            await().atMost(Duration.ofSeconds(10)).until(() -> EngineTestHooks.pollsHeldByDeployCheck(engine) >= 3);
            assertThat(TestDatabase.status(runnable)).isEqualTo("runnable");
            assertThat(TestDatabase.status(atMissingStep)).isEqualTo("runnable");

            Health health = context.getBean(DurableHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(String.valueOf(health.getDetails().get("reason"))).startsWith("durable.deploy-check=fail:"
                    + " this node picks from no queue until its code can run every unfinished instance")
                    .contains("checks again every 500ms");
            assertThat(health.getDetails().get("deployCheck")).asInstanceOf(InstanceOfAssertFactories.list(String.class))
                    .singleElement().asString()
                    .startsWith("1 instance of machine greeter v1 at step 'wave' (runnable) cannot run on this code:"
                            + " STEP_MISSING");

            // Once what it could not run is gone, the node starts picking by itself.
            engine.client().cancel(atMissingStep, "cannot run after the deploy");
            await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(runnable).equals("done"));
            assertThat(engine.heldByDeployCheck()).isFalse();
            assertThat(context.getBean(DurableHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void warnIsTheDefaultAndTheEnginePicks() {
        runner.run(context -> {
            DurableEngine engine = context.getBean(DurableEngine.class);
            assertThat(engine.settings().deployCheck()).isEqualTo(DeployCheck.Mode.WARN);
            await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(runnable).equals("done"));
            assertThat(engine.lastDeployCheck()).hasValueSatisfying(check -> assertThat(check.problems())
                    .extracting(finding -> finding.group().step()).containsExactly("wave"));
            assertThat(context.getBean(DurableHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void anUnknownModeFailsTheStartNamingTheProperty() {
        runner.withPropertyValues("durable.deploy-check=never").run(context -> AutoConfigurationRunner
                .assertStartupFailure(context, BindException.class, "durable.deploy-check"));
    }

    private static long insert(String step) {
        return TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) VALUES ('greeter', 1, ?, ?::jsonb, 'default')"
                + " RETURNING id", Long.class, step, "{\"value\": \"ann\"}");
    }
}
