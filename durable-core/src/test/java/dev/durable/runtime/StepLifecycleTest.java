package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.StepFailureException;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Step timeouts, zombie steps (docs/DESIGN.md, "Shutdown, degraded mode and zombies") and Errors treated as crashes
 * (docs/DESIGN.md, "Outcomes").
 */
class StepLifecycleTest {

    record Job(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @Test
    void aStepRunningPastItsTimeoutIsInterruptedAndTakesTheErrorPath() {
        AtomicReference<Exception> handed = new AtomicReference<>();
        MachineDefinition machine = MachineDefinition.builder("slow", 1, Job.class)
                .step("call", (state, ctx) -> {
                    new CountDownLatch(1).await(); // waits for ever, but answers interruption
                    return Outcome.done();
                }, Duration.ofMillis(300))
                .errorHandler((error, state, ctx) -> {
                    handed.set(error);
                    return Outcome.stop("timed out");
                })
                .build();
        long id = engines.start(machine).client().start("slow", new Job(1)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(handed.get()).isInstanceOf(StepFailureException.Timeout.class)
                .hasMessage("Step 'call' of instance " + id + " ran longer than its timeout of PT0.3S and was "
                        + "interrupted")
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(TestDatabase.row(id)).containsEntry("last_error", "timed out");
    }

    /**
     * A step that ignores its interrupt becomes a zombie after the grace period: reported, counted, and its slot
     * stays taken (the queue has one) so nothing else runs there until it ends; its claim stays held, so its
     * instance cannot run twice. When it finally ends, it takes the timeout's error path.
     */
    @Test
    void aStepIgnoringItsInterruptIsAZombieWhoseSlotIsNotReusedUntilItEnds() {
        AtomicBoolean letGo = new AtomicBoolean();
        List<Integer> ran = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("stubborn", 1, Job.class)
                .step("spin", (state, ctx) -> {
                    ran.add(state.n());
                    if (state.n() == 1) {
                        while (!letGo.get()) {
                            Thread.onSpinWait(); // deaf to interruption
                        }
                    }
                    return Outcome.done();
                }, Duration.ofMillis(300))
                .retryPolicy(RetryPolicy.none()) // the timeout fails the zombie's instance, not a retry of it
                .build();
        DurableEngine engine = engines.start("zombie-node", settings -> settings.queue("default",
                QueueSettings.concurrency(1)).leaseTtl(Duration.ofMillis(1500)).heartbeatInterval(Duration.ofMillis(500)),
                machine);
        long zombie = engine.client().start("stubborn", new Job(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.zombies() == 1);
        long waiting = engine.client().start("stubborn", new Job(2)).id();

        // Timeout 300 ms + zombie grace 1 s passed; now the slot stays taken and the lease (1.5 s) stays held.
        assertThat(engine.stats().zombiesDetected()).isEqualTo(1);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> TestDatabase.status(zombie).equals("executing")
                        && TestDatabase.status(waiting).equals("runnable"));
        assertThat(engine.queues().get("default").claims()).isEqualTo(1);
        assertThat(engine.stats().reaped()).as("the zombie's claim is still heartbeated").isZero();

        letGo.set(true);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(waiting).equals("done"));
        assertThat(engine.zombies()).isZero();
        assertThat(TestDatabase.row(zombie)).containsEntry("status", "failed");
        assertThat((String) TestDatabase.row(zombie).get("last_error"))
                .startsWith(StepFailureException.Timeout.class.getName());
        assertThat(ran).containsExactly(1, 2);
    }

    @Test
    void tooManyZombiesMakeTheNodeReportIt() {
        AtomicBoolean letGo = new AtomicBoolean();
        MachineDefinition machine = MachineDefinition.builder("zombies", 1, Job.class)
                .step("spin", (state, ctx) -> {
                    while (!letGo.get()) {
                        Thread.onSpinWait();
                    }
                    return Outcome.done();
                }, Duration.ofMillis(200))
                .build();
        DurableEngine engine = engines.start("zombie-node", settings -> settings.maxZombies(1), machine);
        engine.client().start("zombies", new Job(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.zombies() == 1);
        assertThat(engine.hasTooManyZombies()).isFalse();

        engine.client().start("zombies", new Job(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.zombies() == 2);
        assertThat(engine.hasTooManyZombies()).isTrue();
        letGo.set(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.zombies() == 0);
    }

    /**
     * An Error is not a business failure: no outcome is written and no error handler runs, as after a crash. The
     * node hands the claim back at once (attempt + 1), not after the lease expires: with a one-minute lease, the
     * step runs again within seconds and nothing is reaped.
     */
    @Test
    void aStepDyingOfAnErrorIsHandedBackAtOnceLikeACrash() {
        AtomicInteger handlerCalls = new AtomicInteger();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("doomed", 1, Job.class)
                .step("run", (state, ctx) -> {
                    attempts.add(ctx.attempt());
                    if (ctx.attempt() == 0) {
                        throw new OutOfMemoryError("simulated");
                    }
                    return Outcome.done("survived");
                })
                .errorHandler((error, state, ctx) -> {
                    handlerCalls.incrementAndGet();
                    return Outcome.stop("handler must not see Errors");
                })
                .build();
        DurableEngine engine = engines.start("test-node", settings -> settings.leaseTtl(Duration.ofMinutes(1)),
                machine);
        long id = engine.client().start("doomed", new Job(1)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(attempts).containsExactly(0, 1);
        assertThat(handlerCalls).hasValue(0);
        assertThat(engine.stats().reaped()).isZero();
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 1).containsEntry("result", "\"survived\"");
    }

    /**
     * A listener that throws an Error when told about a finished step (found by the chaos run: a node on a jar its
     * listener did not match, NoSuchMethodError) must not cost the node the step's slot: with one slot, every
     * instance still runs.
     */
    @Test
    void aListenerThrowingAnErrorDoesNotCostTheNodeItsSlot() {
        MachineDefinition machine = MachineDefinition.builder("heard", 1, Job.class)
                .step("run", (state, ctx) -> Outcome.done(state.n()))
                .build();
        DurableEngine engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(machine))
                .settings(EngineFixture.fastSettings("listened", machine)
                        .queue("default", QueueSettings.concurrency(1)).build())
                .listener(new DurableListener() {
                    @Override
                    public void stepFinished(StepEvent event) {
                        throw new LinkageError("a listener built against another version");
                    }
                })
                .build();
        try (engine) {
            engine.start();
            List<Long> ids = List.of(1, 2, 3).stream()
                    .map(n -> engine.client().start("heard", new Job(n)).id()).toList();

            // A claim ends just after its outcome commits.
            await().atMost(Duration.ofSeconds(15)).until(() -> ids.stream().allMatch(id -> TestDatabase.status(id)
                    .equals("done")) && engine.queues().get("default").claims() == 0);
        }
    }
}
