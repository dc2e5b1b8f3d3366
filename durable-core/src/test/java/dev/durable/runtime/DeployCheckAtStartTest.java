package dev.durable.runtime;

import static dev.durable.runtime.InFlightTest.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The deploy check at a node's start, as {@code deployCheck} says (docs/DESIGN.md, "The deploy check"): {@code fail}
 * keeps the node from picking until its code can run every unfinished instance, {@code warn} logs each group it
 * cannot run, {@code off} does nothing.
 */
class DeployCheckAtStartTest {

    record Order(String reservation) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    /** The new code: step 'ship' of version 1 is gone, while instances wait at it. */
    private final MachineDefinition order = MachineDefinition.builder("order", 1, Order.class)
            .step("pay", (state, ctx) -> Outcome.done())
            .build();

    private List<Long> atMissingStep;
    private List<Long> runnable;

    private void instancesInFlight() {
        atMissingStep = List.of(insert("order", 1, "ship", "runnable", "{\"reservation\": \"R-1\"}"),
                insert("order", 1, "ship", "runnable", "{\"reservation\": \"R-2\"}"));
        runnable = List.of(insert("order", 1, "pay", "runnable", "{\"reservation\": \"R-3\"}"),
                insert("order", 1, "pay", "runnable", "{\"reservation\": \"R-4\"}"),
                insert("order", 1, "pay", "runnable", "{\"reservation\": \"R-5\"}"));
    }

    @Test
    void failKeepsTheNodeFromPickingAndSaysWhyUntilWhatItCannotRunIsGone() {
        instancesInFlight();

        DurableEngine node = engines.start("new-code", settings -> settings.deployCheck(DeployCheck.Mode.FAIL), order);

        assertThat(node.state()).isEqualTo(NodeState.RUNNING);
        assertThat(node.heldByDeployCheck()).isTrue();
        // The check ran at the start; its poller polled, several times, and picked nothing: not even the rows its code
        // can run.
        assertThat(node.lastDeployCheck()).isPresent();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.pollsHeldByDeployCheck() >= 3);
        assertThat(node.stats().picks()).isZero();
        for (long id : atMissingStep) {
            assertThat(TestDatabase.status(id)).isEqualTo("runnable");
        }
        for (long id : runnable) {
            assertThat(TestDatabase.status(id)).isEqualTo("runnable");
        }
        assertThat(node.lastDeployCheck()).hasValueSatisfying(check -> assertThat(check.passed()).isFalse());
        List<String> errors = logs.at(Level.ERROR);
        assertThat(errors).anySatisfy(line -> assertThat(line).isEqualTo("Deploy check: 2 instances of machine order"
                + " v1 at step 'ship' (runnable) cannot run on this code: STEP_MISSING (order v1 declares the steps"
                + " [pay], not 'ship'). Declare step 'ship' in order v1 again (or as a former name of its successor),"
                + " or upcast the instances to a version that has it."));
        assertThat(errors).anySatisfy(line -> assertThat(line)
                .startsWith("Deploy check failed (durable.deploy-check=fail): node " + node.nodeId()
                        + " picks from no queue while its code cannot run 1 group of unfinished instances")
                .contains("checks again every 500ms").contains("set durable.deploy-check=warn"));

        // The operator cancels what the new code cannot run: at its next check the node starts picking.
        atMissingStep.forEach(id -> node.client().cancel(id, "cannot run after the deploy"));
        node.reapNow();

        assertThat(node.heldByDeployCheck()).isFalse();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runnable.stream().allMatch(id -> TestDatabase.status(id).equals("done")));
        assertThat(logs.at(Level.INFO)).contains("Deploy check passed: node " + node.nodeId()
                + " can run every unfinished instance and starts picking");
    }

    @Test
    void warnLogsEachGroupTheCodeCannotRunOnceAndTheNodePicks() {
        instancesInFlight();

        DurableEngine node = engines.start(order);

        assertThat(node.settings().deployCheck()).isEqualTo(EngineSettings.DEFAULT_DEPLOY_CHECK)
                .isEqualTo(DeployCheck.Mode.WARN);
        assertThat(node.heldByDeployCheck()).isFalse();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runnable.stream().allMatch(id -> TestDatabase.status(id).equals("done")));
        // Picked anyway, the instances at the missing step take the error path, as they did before the check.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> atMissingStep.stream().allMatch(id -> TestDatabase.status(id).equals("failed")));
        node.reapNow();
        assertThat(logs.at(Level.WARN)).filteredOn(line -> line.startsWith("Deploy check"))
                .containsExactly("Deploy check: 2 instances of machine order v1 at step 'ship' (runnable) cannot run"
                        + " on this code: STEP_MISSING (order v1 declares the steps [pay], not 'ship'). Declare step"
                        + " 'ship' in order v1 again (or as a former name of its successor), or upcast the instances"
                        + " to a version that has it.");
        assertThat(logs.at(Level.ERROR)).noneMatch(line -> line.startsWith("Deploy check"));
    }

    @Test
    void offChecksNothing() {
        instancesInFlight();

        DurableEngine node = engines.start("new-code", settings -> settings.deployCheck(DeployCheck.Mode.OFF), order);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> runnable.stream().allMatch(id -> TestDatabase.status(id).equals("done")));
        node.reapNow();
        assertThat(node.lastDeployCheck()).isEmpty();
        assertThat(node.heldByDeployCheck()).isFalse();
        for (Level level : List.of(Level.INFO, Level.WARN, Level.ERROR)) {
            assertThat(logs.at(level)).noneMatch(line -> line.startsWith("Deploy check"));
        }
    }
}
