package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful shutdown (docs/DESIGN.md, "Shutdown, degraded mode and zombies"): finish what fits in the grace period, hand
 * the rest back at once.
 */
class GracefulShutdownTest {

    record Task(String kind) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @Test
    void stoppingLetsShortStepsFinishAndReleasesTheRestAtOnceWithTheirAttemptUnchanged() throws Exception {
        CountDownLatch bothRunning = new CountDownLatch(2);
        CountDownLatch neverReleased = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("shutdown", 1, Task.class)
                .step("work", (state, ctx) -> {
                    bothRunning.countDown();
                    if (state.kind().equals("short")) {
                        Thread.sleep(500); // fits in the 2 s grace period
                        return Outcome.done("finished");
                    }
                    neverReleased.await(); // outlives the grace period; the interrupt at shutdown ends it
                    return Outcome.done("too late");
                })
                .build();
        DurableEngine engine = engines.start(machine);
        long shortStep = engine.client().start("shutdown", new Task("short")).id();
        long longStep = engine.client().start("shutdown", new Task("long")).id();
        assertThat(bothRunning.await(10, TimeUnit.SECONDS)).isTrue();

        long stopping = System.nanoTime();
        engine.stop();
        Duration took = Duration.ofNanos(System.nanoTime() - stopping);

        assertThat(engine.state()).isEqualTo(NodeState.STOPPED);
        assertThat(took).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(6));
        assertThat(TestDatabase.row(shortStep)).containsEntry("status", "done").containsEntry("result",
                "\"finished\"");
        Map<String, Object> released = TestDatabase.row(longStep);
        assertThat(released).containsEntry("status", "runnable").containsEntry("attempt", 0)
                .containsEntry("lease_owner", null).containsEntry("lease_token", null)
                .containsEntry("lease_expires_at", null);
        assertThat(engine.stats().released()).isEqualTo(1);
        assertThat(engine.stats().outcomesDiscarded()).isEqualTo(1);
        assertThat(engine.stats().outcomesCommitted()).isEqualTo(1);
    }

    @Test
    void aStoppedNodesReleasedRowIsTakenAtOnceByAnotherNode() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("handover", 1, Task.class)
                .step("work", (state, ctx) -> {
                    if (ctx.attempt() == 0 && TestDatabase.row(ctx.instanceId()).get("lease_owner").toString()
                            .startsWith("leaving")) {
                        started.countDown();
                        new CountDownLatch(1).await();
                    }
                    return Outcome.done("finished by the other node");
                })
                .build();
        DurableEngine leaving = engines.start("leaving", settings -> settings.shutdownGracePeriod(Duration.ZERO),
                machine);
        long id = leaving.client().start("handover", new Task("x")).id();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        leaving.stop();

        DurableEngine staying = engines.start("staying", settings -> settings, machine);
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> TestDatabase.status(id).equals("done"));
        // No lease had to expire: the row was released, not reaped.
        assertThat(staying.stats().reaped()).isZero();
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 0);
    }

    @Test
    void aStoppedEngineStartsAgainAndRunsWhatWasReleasedButAClosedOneDoesNot() throws Exception {
        CountDownLatch firstAttemptRunning = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("restart", 1, Task.class)
                .step("work", (state, ctx) -> {
                    if (state.kind().equals("blocks-once") && firstAttemptRunning.getCount() > 0) {
                        firstAttemptRunning.countDown();
                        new CountDownLatch(1).await(); // released at stop, interrupted
                    }
                    return Outcome.done("finished");
                })
                .build();
        DurableEngine engine = engines.start("restarting", settings -> settings.shutdownGracePeriod(Duration.ZERO),
                machine);
        long released = engine.client().start("restart", new Task("blocks-once")).id();
        assertThat(firstAttemptRunning.await(10, TimeUnit.SECONDS)).isTrue();
        engine.stop();
        assertThat(engine.state()).isEqualTo(NodeState.STOPPED);
        assertThat(TestDatabase.status(released)).isEqualTo("runnable");

        // Spring stops and starts lifecycle beans again (context stop/start, test contexts paused between classes).
        engine.start();
        assertThat(engine.state()).isIn(NodeState.RUNNING, NodeState.DEGRADED);
        long fresh = engine.client().start("restart", new Task("plain")).id();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(released).equals("done")
                && TestDatabase.status(fresh).equals("done"));
        assertThat(TestDatabase.row(released)).containsEntry("attempt", 0);
        assertThat(engine.stats().reaped()).as("nothing waited for a lease to expire").isZero();

        engine.close();
        assertThat(engine.state()).isEqualTo(NodeState.STOPPED);
        assertThatIllegalStateException().isThrownBy(engine::start).withMessageContaining("was closed");
        engine.close(); // idempotent
    }
}
