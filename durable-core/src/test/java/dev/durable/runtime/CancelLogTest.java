package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * What an operator reads when a parent is cancelled while its children run steps (issue 27): one INFO line for the
 * cancel, and no WARN for the children's outcomes the cancel discards, on this node or another. A lease lost
 * otherwise still warns ({@link FencingTest}).
 */
class CancelLogTest {

    record Order(int lines) {
    }

    record Line(int number) {
    }

    private static final int CHILDREN = 3;

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final CountDownLatch childrenRunning = new CountDownLatch(CHILDREN);
    private final Logger durable = (Logger) LoggerFactory.getLogger("dev.durable");
    private @Nullable Level level;

    @BeforeEach
    void debug() {
        level = durable.getLevel();
        durable.setLevel(Level.DEBUG);
    }

    @AfterEach
    void restore() {
        durable.setLevel(level);
    }

    /** split: starts {@code lines} children and awaits them. */
    private MachineDefinition orders() {
        return MachineDefinition.builder("order", 1, Order.class)
                .step("split", (order, ctx) -> Outcome.awaitChildren(order).startingChildren(
                        IntStream.range(0, order.lines()).mapToObj(n -> Child.of("line", new Line(n))).toList()))
                .build();
    }

    /** A child's step that runs until interrupted, then tries to end. */
    private MachineDefinition lines() {
        return MachineDefinition.builder("line", 1, Line.class)
                .step("pack", (line, ctx) -> {
                    childrenRunning.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        // interrupted by the cancel: returns as if nothing happened, and is fenced off
                    }
                    return Outcome.done("packed " + line.number());
                })
                .build();
    }

    @Test
    void cancellingAParentWhoseChildrenRunHereLogsOneInfoLineAndNoWarn() throws Exception {
        DurableEngine engine = engines.start("worker", settings -> settings.heartbeatInterval(Duration.ofMinutes(1))
                .leaseTtl(Duration.ofMinutes(3)), orders(), lines());
        long parent = engine.client().start("order", new Order(CHILDREN)).id();
        assertThat(childrenRunning.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(engine.client().cancel(parent, "operator").isCancelled()).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> engine.stats().outcomesFenced() == CHILDREN);
        assertChildrenCancelled(parent);
        assertThat(logs.at(Level.WARN)).as("WARNs (but the one behind a pooler that says the node polls only)")
                .filteredOn(line -> !line.contains("looks like a connection pooler's")).isEmpty();
        assertThat(logs.at(Level.INFO)).filteredOn(line -> line.startsWith("Cancelled"))
                .containsExactly("Cancelled instance(s) [" + parent + "]; " + CHILDREN + " instance(s) of it, children"
                        + " included, were running a step, whose outcome is discarded");
        assertThat(logs.at(Level.DEBUG)).filteredOn(line -> line.contains("was cancelled while its step ran"))
                .hasSize(CHILDREN);
    }

    /** The cancel reaches the other node by its notification (wake-ups LISTEN, the default). */
    @Test
    void cancellingAParentWhoseChildrenRunOnAnotherNodeLogsNoWarnThere() throws Exception {
        cancelOnAnotherNode(WakeUps.LISTEN);
    }

    /** The cancel reaches the other node at its heartbeat, which finds the claims gone (wake-ups POLL). */
    @Test
    void cancellingAParentWhoseChildrenRunOnAPollingNodeLogsNoWarnThereEither() throws Exception {
        cancelOnAnotherNode(WakeUps.POLL);
        assertThat(logs.at(Level.DEBUG)).filteredOn(line -> line.contains("was cancelled on another node"))
                .hasSize(CHILDREN);
    }

    private void cancelOnAnotherNode(WakeUps wakeUps) throws Exception {
        DurableEngine worker = engines.start("worker", settings -> settings.heartbeatInterval(Duration.ofMillis(200))
                .wakeUps(wakeUps), orders(), lines());
        DurableClient elsewhere = engines.clientOnly(orders(), lines());
        long parent = elsewhere.start("order", new Order(CHILDREN)).id();
        assertThat(childrenRunning.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(elsewhere.cancel(parent, null).isCancelled()).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> worker.stats().outcomesFenced() == CHILDREN);
        assertChildrenCancelled(parent);
        assertThat(logs.at(Level.WARN)).as("WARNs (but the one behind a pooler that says the node polls only)")
                .filteredOn(line -> !line.contains("looks like a connection pooler's")).isEmpty();
        assertThat(logs.at(Level.INFO)).filteredOn(line -> line.startsWith("Cancelled")).hasSize(1);
        assertThat(logs.at(Level.DEBUG)).filteredOn(line -> line.contains("was cancelled while its step ran"))
                .hasSize(CHILDREN);
    }

    private static void assertChildrenCancelled(long parent) {
        List<String> statuses = TestDatabase.jdbc().queryForList("SELECT status::text FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE parent_id = ?", String.class, parent);
        assertThat(statuses).hasSize(CHILDREN).containsOnly("cancelled");
    }
}
