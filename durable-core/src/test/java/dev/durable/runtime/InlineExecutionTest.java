package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.Signal;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Inline execution of {@code next} chains (opt-in): the next step runs at once on the claim already held. The
 * guarantee does not change: every step's outcome is committed before the next step starts.
 */
class InlineExecutionTest {

    record Count(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private static UnaryOperator<EngineSettings.Builder> inline() {
        return settings -> settings.inlineNextSteps(true);
    }

    @Test
    void aChainRunsOnOnePickAndEachStepSeesThePreviousOutcomeCommitted() {
        List<String> seenInDatabase = new CopyOnWriteArrayList<>();
        MachineDefinition.Builder<Count> chain = MachineDefinition.builder("chain", 1, Count.class).initialStep("s0");
        for (int i = 0; i < 10; i++) {
            String next = "s" + (i + 1);
            boolean last = i == 9;
            chain.step("s" + i, (state, ctx) -> {
                // Read through another connection: only committed data is visible there.
                Map<String, Object> row = TestDatabase.row(ctx.instanceId());
                seenInDatabase.add(row.get("step") + "=" + row.get("state") + "@" + row.get("status"));
                return last ? Outcome.done(state.n()) : Outcome.next(next, new Count(state.n() + 1));
            });
        }
        DurableEngine engine = engines.start("inline-node", inline(), chain.build());
        long id = engine.client().start("chain", new Count(0)).id();

        // The node counts a step's outcome after its commit, before it lets go of the claim: the wait is for both.
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done")
                && engine.claims() == 0);
        assertThat(engine.stats().picked()).isEqualTo(1);
        assertThat(engine.stats().outcomesCommitted()).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(seenInDatabase.get(i)).isEqualTo("s" + i + "={\"n\": " + i + "}@executing");
        }
        assertThat(TestDatabase.row(id)).containsEntry("result", "9").containsEntry("attempt", 0);
    }

    @Test
    void anInlineStepSeesSignalsThatArrivedDuringThePreviousStepButNotTheConsumedOnes() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch signalSent = new CountDownLatch(1);
        List<List<String>> inboxes = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("inbox-chain", 1, Count.class)
                .initialStep("wait")
                .step("wait", (state, ctx) -> {
                    if (ctx.awaited("go").isEmpty()) {
                        return Outcome.await("go", state);
                    }
                    firstRunning.countDown();
                    assertThat(signalSent.await(10, TimeUnit.SECONDS)).isTrue();
                    return Outcome.next("after", state); // consumes "go"
                })
                .step("after", (state, ctx) -> {
                    inboxes.add(ctx.inbox().all().stream().map(Signal::name).toList());
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engines.start("inline-node", inline(), machine);
        long id = engine.client().start("inbox-chain", new Count(0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        engine.client().signal(id, "go", null);
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        engine.client().signal(id, "late", null);
        signalSent.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(inboxes).containsExactly(List.of("late"));
        assertThat(engine.stats().picked()).isEqualTo(2); // the first run, then the run woken by "go"
    }

    @Test
    void aBacklogOfChainsLargerThanTheSlotsDrainsWithoutWaitingForAPoll() {
        MachineDefinition.Builder<Count> chain = MachineDefinition.builder("chain", 1, Count.class).initialStep("s0");
        for (int i = 0; i < 5; i++) {
            String next = "s" + (i + 1);
            boolean last = i == 4;
            chain.step("s" + i, (state, ctx) -> last ? Outcome.done() : Outcome.next(next, state));
        }
        // Polls too rare to matter: only the wake-ups of the node's own claims can drain the backlog in time. While
        // chains keep their claims nothing is claimable, and the prefetch grows once the first steps are timed, so a
        // chain's end makes several rows claimable at once: the poller asleep for want of room must still hear of it.
        DurableEngine engine = engines.start("inline-node", settings -> settings.inlineNextSteps(true)
                .queue("default", new QueueSettings(2, 2))
                .pollInterval(Duration.ofSeconds(30)).idlePollInterval(Duration.ofSeconds(30)), chain.build());
        List<Long> ids = engine.client().startAll("chain", IntStream.range(0, 40)
                .mapToObj(n -> StartRequest.of(new Count(n))).toList()).stream().map(r -> r.id()).toList();

        await().atMost(Duration.ofSeconds(15)).until(() -> ids.stream().allMatch(id -> TestDatabase.status(id)
                .equals("done")) && engine.claims() == 0);
        assertThat(engine.stats().outcomesCommitted()).isEqualTo(200);
    }

    @Test
    void aLongChainGoesBackToItsQueueEveryHundredInlineSteps() {
        MachineDefinition loop = MachineDefinition.builder("loop", 1, Count.class)
                .step("again", (state, ctx) -> state.n() == 249 ? Outcome.done()
                        : Outcome.next("again", new Count(state.n() + 1)))
                .build();
        DurableEngine engine = engines.start("inline-node", inline(), loop);
        long id = engine.client().start("loop", new Count(0)).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done")
                && engine.claims() == 0);
        assertThat(engine.stats().outcomesCommitted()).isEqualTo(250);
        assertThat(engine.stats().picked()).isEqualTo(3); // steps 0-100, 101-201, 202-249
    }

    @Test
    void aChainKeepsItsPartitionKeySoNoOtherInstanceOfTheKeyRunsInBetween() {
        List<String> order = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("keyed-chain", 1, Count.class)
                .initialStep("a")
                .step("a", (state, ctx) -> {
                    order.add(ctx.instanceId() + "a");
                    return Outcome.next("b", state);
                })
                .step("b", (state, ctx) -> {
                    order.add(ctx.instanceId() + "b");
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engines.build("inline-node", inline(), machine);
        long first = engine.client().start("keyed-chain", new Count(0), StartOptions.defaults().partitionKey("k")).id();
        long second = engine.client().start("keyed-chain", new Count(0), StartOptions.defaults().partitionKey("k")).id();
        engine.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(second).equals("done"));
        assertThat(order).containsExactly(first + "a", first + "b", second + "a", second + "b");
    }

    @Test
    void aStopDuringAnInlineChainHandsTheRowBackBeforeTheNextStep() throws Exception {
        CountDownLatch firstStepRunning = new CountDownLatch(1);
        CountDownLatch stopping = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("interrupted-chain", 1, Count.class)
                .initialStep("a")
                .step("a", (state, ctx) -> {
                    ran.add("a");
                    firstStepRunning.countDown();
                    stopping.await(10, TimeUnit.SECONDS);
                    return Outcome.next("b", state);
                })
                .step("b", (state, ctx) -> {
                    ran.add("b");
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engines.start("inline-node", settings -> inline().apply(settings)
                .shutdownGracePeriod(Duration.ofSeconds(10)), machine);
        long id = engine.client().start("interrupted-chain", new Count(0)).id();
        assertThat(firstStepRunning.await(10, TimeUnit.SECONDS)).isTrue();

        Thread stopper = new Thread(engine::stop);
        stopper.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.state() == NodeState.DRAINING);
        stopping.countDown();
        stopper.join(15_000);

        // Step a's next was committed as a plain next (the claim was not kept): b waits in the queue for any node.
        assertThat(ran).containsExactly("a");
        assertThat(TestDatabase.row(id)).containsEntry("status", "runnable").containsEntry("step", "b")
                .containsEntry("lease_owner", null).containsEntry("attempt", 0);
        assertThat(engine.stats().outcomesCommitted()).isEqualTo(1);
    }
}
