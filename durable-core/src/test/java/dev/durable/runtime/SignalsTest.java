package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.Signal;
import dev.durable.SignalRefusedException;
import dev.durable.SignalResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Await and signals through a running engine (docs/DESIGN.md, "Signals and wake-ups"). */
class SignalsTest {

    record Payment(String reference, int cents) {
    }

    record Order(int id) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final AtomicInteger runs = new AtomicInteger();
    private final List<List<String>> awaitedSeen = new CopyOnWriteArrayList<>();

    @Test
    void anAwaitedSignalWakesTheSameStepWhichSeesItAsAwaitedWithItsPayload() {
        MachineDefinition machine = MachineDefinition.builder("checkout", 1, Order.class)
                .step("pay", (state, ctx) -> {
                    runs.incrementAndGet();
                    return ctx.awaited("payment")
                            .map(signal -> Outcome.done(signal.payload(Payment.class).reference()))
                            .orElseGet(() -> Outcome.await("payment", state));
                })
                .build();
        DurableClient client = engines.start(machine).client();
        long id = client.start("checkout", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        SignalResult result = client.signal(id, "payment", new Payment("pay-7", 1200), "evt-1");

        assertThat(result).isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, true));
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"pay-7\"");
        assertThat(runs).hasValue(2);
        assertThat(TestDatabase.jdbc().queryForList("SELECT dedup_key FROM durable_it.durable_signal"
                + " WHERE instance_id = ? AND consumed_at IS NOT NULL", String.class, id))
                .as("a terminal outcome empties the inbox, keeping only the dedup key's tombstone").containsExactly("evt-1");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_signal"
                + " WHERE instance_id = ? AND consumed_at IS NULL", Long.class, id)).isZero();
    }

    /** Pitfall P2 through the engine: a step that re-awaits after seeing its signal parks; it does not spin. */
    @Test
    void reAwaitingAfterSeeingTheSignalDoesNotSpin() {
        MachineDefinition machine = MachineDefinition.builder("stubborn", 1, Order.class)
                .step("wait", (state, ctx) -> {
                    runs.incrementAndGet();
                    awaitedSeen.add(ctx.awaited().stream().map(Signal::name).toList());
                    return Outcome.await("go", state); // never satisfied
                })
                .build();
        DurableEngine engine = engines.start("test-node", settings -> settings.pollInterval(Duration.ofMillis(100))
                .idlePollInterval(Duration.ofMillis(100)), machine);
        long id = engine.client().start("stubborn", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        engine.client().signal(id, "go", null);

        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 2
                && TestDatabase.status(id).equals("awaiting_signal"));
        // Ten poll intervals later it still sits parked, run exactly twice.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> runs.get() == 2 && TestDatabase.status(id).equals("awaiting_signal"));
        assertThat(awaitedSeen).containsExactly(List.of(), List.of("go"));
        assertThat(TestDatabase.signals(id)).hasSize(1); // await consumes nothing
    }

    @Test
    void aSignalArrivingWhileTheWokenStepRunsSurvivesTheStepsConsumption() throws Exception {
        CountDownLatch stepRunning = new CountDownLatch(1);
        CountDownLatch secondSignalSent = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("inbox", 1, Order.class)
                .initialStep("wait")
                .step("wait", (state, ctx) -> {
                    if (ctx.awaited("item").isEmpty()) {
                        return Outcome.await("item", state);
                    }
                    stepRunning.countDown();
                    assertThat(secondSignalSent.await(10, TimeUnit.SECONDS)).isTrue();
                    return Outcome.next("rest", state);
                })
                .step("rest", (state, ctx) -> Outcome.await("never", state))
                .build();
        DurableEngine engine = engines.start(machine);
        long id = engine.client().start("inbox", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        engine.client().signal(id, "item", Map.of("n", 1));
        assertThat(stepRunning.await(10, TimeUnit.SECONDS)).isTrue();
        engine.client().signal(id, "item", Map.of("n", 2));
        secondSignalSent.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.row(id).get("step").equals("rest")
                && TestDatabase.status(id).equals("awaiting_signal"));
        // The next outcome deleted exactly the awaited signal it was handed; the one sent mid-step is still there.
        assertThat(TestDatabase.signals(id)).singleElement()
                .satisfies(signal -> assertThat(signal.get("payload")).isEqualTo("{\"n\": 2}"));
    }

    @Test
    void aSecondSignalWithTheSameDedupKeyIsNotStored() {
        DurableClient client = engines.clientOnly(parkingMachine());
        long id = client.start("parking", new Order(1)).id();

        SignalResult first = client.signal(id, "note", "a", "evt-9");
        SignalResult second = client.signal(id, "note", "b", "evt-9");
        SignalResult other = client.signal(id, "note", "c", "evt-10");

        assertThat(first.delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(second.delivery()).isEqualTo(SignalResult.Delivery.DEDUPLICATED);
        assertThat(other.delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(TestDatabase.signals(id)).extracting(signal -> signal.get("payload"))
                .containsExactly("\"a\"", "\"c\"");
    }

    /** A webhook redelivered after its signal was consumed is still recognised: consumed signals with a dedup key
     * stay as tombstones. */
    @Test
    void aDedupKeyStillDeduplicatesAfterItsSignalWasConsumed() {
        MachineDefinition machine = MachineDefinition.builder("twice", 1, Order.class)
                .initialStep("first")
                .step("first", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.next("second", state)
                        : Outcome.await("paid", state))
                .step("second", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.done()
                        : Outcome.await("paid", state))
                .build();
        DurableClient client = engines.start(machine).client();
        long id = client.start("twice", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.signal(id, "paid", "first payment", "evt-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.row(id).get("step").equals("second")
                && TestDatabase.status(id).equals("awaiting_signal"));

        SignalResult redelivered = client.signal(id, "paid", "first payment", "evt-1");

        assertThat(redelivered).isEqualTo(new SignalResult(id, SignalResult.Delivery.DEDUPLICATED, false));
        assertThat(TestDatabase.status(id)).isEqualTo("awaiting_signal");
        assertThat(client.signal(id, "paid", "second payment", "evt-2").wokeInstance()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
    }

    /**
     * A webhook redelivered after its instance consumed the signal and finished is answered "deduplicated", so a
     * handler need not treat a refusal as success; a new key to the ended instance is still refused, and a signal
     * without a key leaves nothing behind.
     */
    @Test
    void aDedupKeyStillDeduplicatesAfterTheInstanceEnded() {
        MachineDefinition machine = MachineDefinition.builder("pay-once", 1, Order.class)
                .step("pay", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.done()
                        : Outcome.await("paid", state))
                .build();
        DurableClient client = engines.start(machine).client();
        long id = client.start("pay-once", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.signal(id, "unrelated", "no key", null);
        client.signal(id, "paid", "payment", "evt-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(client.signal(id, "paid", "payment", "evt-1"))
                .isEqualTo(new SignalResult(id, SignalResult.Delivery.DEDUPLICATED, false));
        assertThat(client.signal(id, "paid", "another payment", "evt-2").delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE);
        assertThat(client.signal(id, "paid", "no key", null).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE);
        assertThat(TestDatabase.signals(id)).extracting(signal -> signal.get("dedup_key")).containsExactly("evt-1");
    }

    @Test
    void aSignalToAMissingInstanceIsRefusedAndNothingIsStored() {
        DurableClient client = engines.clientOnly(parkingMachine());

        SignalResult result = client.signal(424242, "note", "x", null);

        assertThat(result).isEqualTo(new SignalResult(424242, SignalResult.Delivery.REFUSED_UNKNOWN_INSTANCE, false));
        assertThat(result.isRefused()).isTrue();
        Assertions.assertThatThrownBy(result::orThrow).isInstanceOf(SignalRefusedException.class)
                .hasMessage("Signal refused: no instance with id 424242");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_signal", Long.class))
                .isZero();
    }

    @Test
    void aSignalToATerminalInstanceIsRefusedAndNothingIsStored() {
        MachineDefinition machine = MachineDefinition.builder("quick", 1, Order.class)
                .step("only", (state, ctx) -> Outcome.done())
                .build();
        DurableClient client = engines.start(machine).client();
        long id = client.start("quick", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        SignalResult result = client.signal(id, "late", "x", null);

        assertThat(result.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE);
        Assertions.assertThatThrownBy(result::orThrow).hasMessage("Signal refused: instance " + id
                + " has ended (done, failed or cancelled)");
        assertThat(TestDatabase.signals(id)).isEmpty();
    }

    @Test
    void signalsOfOtherNamesStayInTheInboxUntilAwaited() {
        List<List<String>> inboxes = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("collector", 1, Order.class)
                .step("collect", (state, ctx) -> {
                    inboxes.add(ctx.inbox().all().stream().map(Signal::name).toList());
                    return ctx.awaited("b").isPresent() ? Outcome.done() : Outcome.await("b", state);
                })
                .build();
        DurableEngine engine = engines.start(machine);
        long id = engine.client().start("collector", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        assertThat(engine.client().signal(id, "a", 1).wokeInstance()).isFalse();
        assertThat(TestDatabase.status(id)).isEqualTo("awaiting_signal");
        assertThat(engine.client().signal(id, "b", 2).wokeInstance()).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(inboxes).containsExactly(List.of(), List.of("a", "b"));
    }

    private static MachineDefinition parkingMachine() {
        return MachineDefinition.builder("parking", 1, Order.class)
                .step("park", (state, ctx) -> Outcome.await("never", state))
                .build();
    }
}
