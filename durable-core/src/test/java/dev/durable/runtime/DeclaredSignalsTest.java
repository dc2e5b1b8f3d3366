package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.SignalRefusedException;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.machine.MachineRegistry;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Declared signals (docs/DESIGN.md, "Declared signals"): a machine that declares the signals it accepts has a misspelt
 * name and a payload that does not bind refused at the call, with nothing stored, through every way of sending; its
 * steps read payloads typed; a machine that declares nothing behaves as before; the declarations are each version's,
 * and come back with the code after a restart and a deploy.
 */
class DeclaredSignalsTest {

    record Order(int id) {
    }

    /** What a step reads of a payment, whatever its type. */
    interface Paid {
        String reference();
    }

    record Payment(String reference, int cents) implements Paid {
    }

    /** A payment with a note: a type of another version, and what a sender sends by mistake to one without. */
    record NotedPayment(String reference, int cents, String note) implements Paid {
    }

    record Refund(String reference) {
    }

    record Item(String sku) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    /** An order that waits for a payment, read as {@code readAs}, and ends with its reference. */
    private static MachineDefinition.Builder<Order> order(int version, Class<? extends Paid> readAs) {
        return MachineDefinition.builder("order", version, Order.class)
                .step("pay", (state, ctx) -> ctx.awaited("payment", readAs)
                        .map(payment -> Outcome.done(payment.reference()))
                        .orElseGet(() -> Outcome.await("payment", state)));
    }

    /** Order v1: a payment is the one signal it declares besides a cancel request without a payload. */
    private static MachineDefinition declaringOrder() {
        return order(1, Payment.class).signal("payment", Payment.class).signal("cancel-request").build();
    }

    private long parked(DurableClient client, StartOptions options) {
        long id = client.start("order", new Order(1), options).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        return id;
    }

    @Test
    void aMisspeltNameIsRefusedAtEveryCallNamingTheMachineVersionAndWhatItAcceptsAndNothingIsStored() {
        DurableClient client = engines.start(declaringOrder()).client();
        long id = parked(client, StartOptions.defaults().uniqueKey("order-1"));
        String reason = "Signal 'paymnet' to instance " + id + " refused: machine order v1 does not declare it; it"
                + " accepts payment (" + Payment.class.getName() + "), cancel-request (no payload). Nothing was"
                + " stored.";
        Payment payment = new Payment("pay-1", 100);

        List<SignalResult> results = List.of(
                client.signal(id, "paymnet", payment),
                client.signal(id, "paymnet", payment, "evt-1"),
                client.signalByUniqueKey("order-1", "paymnet", payment),
                client.signalByUniqueKey("order-1", "paymnet", payment, "evt-1"));

        for (SignalResult result : results) {
            assertThat(result.instanceId()).isEqualTo(id);
            assertThat(result.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
            assertThat(result.isRefused()).isTrue();
            assertThat(result.wokeInstance()).isFalse();
            SignalResult.Mismatch mismatch = result.mismatch();
            assertThat(mismatch.signal()).isEqualTo("paymnet");
            assertThat(mismatch.machine()).isEqualTo("order");
            assertThat(mismatch.version()).isEqualTo(1);
            assertThat(mismatch.declaredBy()).isEqualTo(1);
            assertThat(mismatch.declared()).containsExactly(Map.entry("payment", Payment.class.getName()),
                    Map.entry("cancel-request", "java.lang.Void"));
            assertThat(mismatch.expectedType()).isNull();
            assertThat(mismatch.reason()).isEqualTo(reason);
            assertThatThrownBy(result::orThrow).isInstanceOf(SignalRefusedException.class).hasMessage(reason);
        }
        assertThat(TestDatabase.signals(id)).isEmpty();
        assertThat(TestDatabase.status(id)).isEqualTo("awaiting_signal");
        // The refused dedup key was not stored either: the right signal under it is delivered, not deduplicated.
        assertThat(client.signal(id, "payment", payment, "evt-1"))
                .isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, true));
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(engines.start(declaringOrder()).client().find(id).orElseThrow().result(String.class))
                .isEqualTo("pay-1");
    }

    @Test
    void aPayloadThatDoesNotBindToTheDeclaredTypeIsRefusedSayingWhyAndNothingIsStored() {
        DurableClient client = engines.start(declaringOrder()).client();
        long id = parked(client, StartOptions.defaults());
        String declared = " refused: machine order v1 declares its payload as " + Payment.class.getName() + ", and ";

        SignalResult text = client.signal(id, "payment", "bob");
        SignalResult lossy = client.signal(id, "payment", new NotedPayment("pay-1", 100, "gift"), "evt-1");
        SignalResult map = client.signal(id, "payment", Map.of("reference", "pay-1", "cents", 1, "amount", 1.5));
        SignalResult none = client.signal(id, "payment", null);
        SignalResult unwanted = client.signal(id, "cancel-request", Map.of("why", "changed my mind"));

        assertThat(List.of(text, lossy, map, none, unwanted)).extracting(SignalResult::delivery)
                .containsOnly(SignalResult.Delivery.REFUSED_WRONG_PAYLOAD);
        assertThat(text.mismatch().reason()).startsWith("Signal 'payment' to instance " + id + declared
                + "reading this one as it fails: Cannot read JSON as " + Payment.class.getName() + ": ")
                .endsWith(". Nothing was stored.");
        assertThat(lossy.mismatch().reason()).isEqualTo("Signal 'payment' to instance " + id + declared
                + "reading this one as it would drop [$.note], which it has no place for. Nothing was stored.");
        assertThat(map.mismatch().reason()).contains("would drop [$.amount]");
        assertThat(none.mismatch().reason()).isEqualTo("Signal 'payment' to instance " + id + declared
                + "this one carries none. Nothing was stored.");
        assertThat(unwanted.mismatch().reason()).isEqualTo("Signal 'cancel-request' to instance " + id
                + " refused: machine order v1 declares it without a payload, and this one carries one, which no step"
                + " would read. Nothing was stored.");
        assertThat(text.mismatch().expectedType()).isEqualTo(Payment.class.getName());
        assertThat(unwanted.mismatch().expectedType()).isEqualTo("java.lang.Void");
        assertThat(TestDatabase.signals(id)).isEmpty();
        assertThat(TestDatabase.status(id)).isEqualTo("awaiting_signal");
        // What binds is delivered: the payload as a map of the declared properties, and a bare cancel request.
        assertThat(client.signal(id, "cancel-request", null).delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(client.signal(id, "payment", Map.of("reference", "pay-2", "cents", 7)).wokeInstance()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
    }

    /** A refusal is a result, not an exception: the caller's transaction goes on, and commits its own writes. */
    @Test
    void aRefusalInsideACallersTransactionWritesNothingAndLeavesTheTransactionToTheCaller() {
        DurableClient client = engines.clientOnly(declaringOrder());
        long id = client.start("order", new Order(1)).id();
        TransactionTemplate transaction = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));

        long[] started = new long[1];
        SignalResult refused = transaction.execute(status -> {
            SignalResult result = client.signal(id, "paymnet", new Payment("pay-1", 1), "evt-1");
            started[0] = client.start("order", new Order(2)).id();
            return result;
        });

        assertThat(refused.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
        assertThat(TestDatabase.signals(id)).isEmpty();
        assertThat(TestDatabase.status(started[0])).as("the caller's own write committed").isEqualTo("runnable");
    }

    /** The refusal comes before the instance's status and dedup keys: a mistake is one whatever the instance did. */
    @Test
    void aSignalTheMachineDoesNotDeclareIsRefusedAsSuchAlsoToAnEndedOrMissingInstance() {
        MachineDefinition deaf = MachineDefinition.builder("deaf", 1, Order.class)
                .step("only", (state, ctx) -> Outcome.done()).acceptsNoSignals().build();
        DurableEngine engine = engines.start(deaf);
        long id = engine.client().start("deaf", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        SignalResult result = engine.client().signal(id, "anything", null, "evt-1");

        assertThat(result.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
        assertThat(result.mismatch().reason()).isEqualTo("Signal 'anything' to instance " + id + " refused: machine"
                + " deaf v1 accepts no signals. Nothing was stored.");
        assertThat(engine.client().signal(id + 1000, "anything", null).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_UNKNOWN_INSTANCE);
    }

    /** The payload is read as the declared type: a generic one reads its elements as declared. */
    @Test
    void theStepReadsTheAwaitedPayloadTypedAsDeclared() {
        List<Object> read = new java.util.concurrent.CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("picker", 1, Order.class)
                .signal("items", listOf(Item.class))
                .step("pick", (state, ctx) -> ctx.awaited("items", List.class).map(items -> {
                    read.addAll(items);
                    return Outcome.done();
                }).orElseGet(() -> Outcome.await("items", state)))
                .build();
        DurableClient client = engines.start(machine).client();
        long id = client.start("picker", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        assertThat(client.signal(id, "items", List.of(Map.of("sku", "A"), Map.of("sku", "B"))).delivery())
                .isEqualTo(SignalResult.Delivery.DELIVERED);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(read).containsExactly(new Item("A"), new Item("B"));
    }

    /**
     * What a step awaits is known only when it returns: an await of a name the machine does not declare is an invalid
     * outcome, and reading a payload as a type the declaration is not throws, both on the error path.
     */
    @Test
    void anAwaitOfAnUndeclaredNameOrAReadAsAnotherTypeTakesTheErrorPath() {
        MachineDefinition misspelt = MachineDefinition.builder("misspelt", 1, Order.class)
                .signal("payment", Payment.class)
                .step("pay", (state, ctx) -> Outcome.await("paymnet", state)).build();
        MachineDefinition misread = MachineDefinition.builder("misread", 1, Order.class)
                .signal("payment", Payment.class)
                .step("pay", (state, ctx) -> ctx.awaited("payment", Refund.class).map(refund -> Outcome.done())
                        .orElseGet(() -> Outcome.await("payment", state))).build();
        DurableClient client = engines.start(misspelt, misread).client();

        long awaiting = client.start("misspelt", new Order(1)).id();
        long reading = client.start("misread", new Order(2)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(awaiting).equals("failed")
                && TestDatabase.status(reading).equals("failed"));
        assertThat(TestDatabase.row(awaiting).get("last_error")).isEqualTo(
                "dev.durable.machine.StepFailureException$InvalidOutcome: Step 'pay' of misspelt v1 (instance "
                        + awaiting + ") awaits signal 'paymnet', which misspelt v1 does not declare (it accepts"
                        + " payment): no signal of that name can be delivered to it");
        assertThat(TestDatabase.row(reading).get("last_error")).isEqualTo("dev.durable.machine.StepFailureException"
                + "$UndeclaredSignal: Step"
                + " 'pay' of misread v1 (instance " + reading + ") reads signal 'payment' as "
                + Refund.class.getName() + ", but misread v1 declares its payload as " + Payment.class.getName());
    }

    /** A machine that declares nothing: any name, any payload, as before declarations existed. */
    @Test
    void aMachineThatDeclaresNoSignalsAcceptsAnyAsBefore() {
        MachineDefinition open = order(1, NotedPayment.class).build();
        DurableClient client = engines.start(open).client();
        long id = parked(client, StartOptions.defaults());

        assertThat(client.signal(id, "paymnet", "bob")).isEqualTo(new SignalResult(id,
                SignalResult.Delivery.DELIVERED, false));
        assertThat(client.signal(id, "anything", null, "evt-1").delivery())
                .isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(client.signal(id, "payment", new NotedPayment("pay-1", 5, "gift")))
                .isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, true));
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"pay-1\"");
    }

    @Test
    void theNodeLogsOnceAtItsFirstStartWhichMachinesAcceptAnySignal() {
        MachineDefinition open = MachineDefinition.builder("open", 1, Order.class)
                .step("only", (state, ctx) -> Outcome.done()).build();
        MachineDefinition openV2 = MachineDefinition.builder("open", 2, Order.class)
                .step("only", (state, ctx) -> Outcome.done()).build();
        DurableEngine engine = engines.start("logging", UnaryOperator.identity(), declaringOrder(), open, openV2);
        engine.stop();
        engine.start();

        assertThat(logs.at(Level.INFO)).filteredOn(line -> line.contains("accept any signal")).singleElement()
                .satisfies(line -> assertThat(line).startsWith("Machines open v1, open v2 declare no signals, so they"
                        + " accept any signal name and payload: declare them (MachineDefinition.Builder.signal,"
                        + " @DurableSignal) to have a misspelt name or a payload of the wrong type refused at the call")
                        .contains("Declared signals"));

        // A node whose machines all declare their signals says nothing of it.
        engines.start("declaring", UnaryOperator.identity(), declaringOrder());
        assertThat(logs.at(Level.INFO)).filteredOn(line -> line.contains("accept any signal")).hasSize(1);
    }

    /** An interface nothing names the implementations of: Jackson cannot construct it. */
    interface Shape {
    }

    @Test
    void aPayloadTypeTheCodecCannotReadFailsTheEngineNamingTheMachineAndSignal() {
        MachineDefinition machine = order(1, Payment.class).signal("payment", Shape.class).build();

        assertThatThrownBy(() -> engines.build("node", UnaryOperator.identity(), machine))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessageStartingWith("Machine order v1 (machine 'order' v1) declares signal 'payment' with payloads"
                        + " of type " + Shape.class.getTypeName() + ", which its JSON codec cannot read: ");
    }

    /**
     * Nothing about declarations is stored: they come back with the code. After a restart the same ones hold; after a
     * deploy that registers v2 beside v1, each instance is checked against its own version's; a node that runs v1
     * only through v2's upcaster checks v1's instances against v2's, whose code reads their signals.
     */
    @Test
    void declaredSignalsSurviveARestartAndADeployEachVersionCheckedAgainstItsOwn() {
        DurableEngine first = engines.start("first", UnaryOperator.identity(), declaringOrder());
        long v1 = parked(first.client(), StartOptions.defaults());
        first.close();

        // Restarted with the same code: the same declarations.
        DurableEngine restarted = engines.start("restarted", UnaryOperator.identity(), declaringOrder());
        assertThat(restarted.client().signal(v1, "paymnet", new Payment("p", 1)).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
        restarted.close();

        // Deployed: v2 takes refunds and a payment of another type, v1 is still registered.
        MachineDefinition v2Definition = order(2, NotedPayment.class).signal("payment", NotedPayment.class)
                .signal("refund", Refund.class).build();
        DurableEngine deployed = engines.start("deployed", UnaryOperator.identity(), declaringOrder(), v2Definition);
        long v2 = deployed.client().start("order", new Order(2), StartOptions.defaults().version(2)).id();
        SignalResult refundToV1 = deployed.client().signal(v1, "refund", new Refund("r-1"));
        assertThat(refundToV1.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
        assertThat(refundToV1.mismatch().version()).isEqualTo(1);
        assertThat(refundToV1.mismatch().declared()).containsOnlyKeys("payment", "cancel-request");
        assertThat(deployed.client().signal(v2, "refund", new Refund("r-1")).delivery())
                .isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(deployed.client().signal(v1, "payment", new NotedPayment("p", 1, "n")).delivery())
                .as("v1 declares the payment without a note").isEqualTo(SignalResult.Delivery.REFUSED_WRONG_PAYLOAD);
        assertThat(deployed.client().signal(v2, "payment", Map.of("reference", "p", "cents", 1, "when", "now"))
                .mismatch().expectedType()).isEqualTo(NotedPayment.class.getName());
        deployed.close();

        // Only v2 now, upcasting v1: v1's instance is checked against v2's declarations.
        MachineDefinition upcasting = order(2, NotedPayment.class).signal("payment", NotedPayment.class)
                .signal("refund", Refund.class).upcaster(1, tree -> tree).build();
        DurableClient latest = engines.clientOnly(upcasting);
        SignalResult upcast = latest.signal(v1, "cancel-request", null);
        assertThat(upcast.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL);
        assertThat(upcast.mismatch().version()).isEqualTo(1);
        assertThat(upcast.mismatch().declaredBy()).isEqualTo(2);
        assertThat(upcast.mismatch().reason()).isEqualTo("Signal 'cancel-request' to instance " + v1 + " refused:"
                + " machine order v1 (run as v2 after an upcast, whose declarations apply) does not declare it; it"
                + " accepts payment (" + NotedPayment.class.getName() + "), refund (" + Refund.class.getName()
                + "). Nothing was stored.");
        assertThat(latest.signal(v1, "refund", new Refund("r-2")).delivery())
                .isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(TestDatabase.signals(v1)).hasSize(1);
    }

    /** A node checks what it runs: a version it neither registers nor upcasts is delivered unchecked, as before. */
    @Test
    void aVersionTheSendingNodeDoesNotRunIsNotChecked() {
        DurableClient old = engines.clientOnly(declaringOrder());
        long v1 = old.start("order", new Order(1)).id();
        DurableClient other = engines.clientOnly(order(2, Payment.class).signal("payment", Payment.class).build());

        assertThat(other.signal(v1, "paymnet", null).delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
    }

    /** Signals stored before the machine declared its signals are not touched, and are read as before. */
    @Test
    void aSignalStoredBeforeTheMachineDeclaredItsSignalsIsReadAsBefore() {
        DurableClient before = engines.clientOnly(order(1, Payment.class).build());
        long id = before.start("order", new Order(1)).id();
        assertThat(before.signal(id, "payment", new NotedPayment("pay-1", 100, "gift")).delivery())
                .isEqualTo(SignalResult.Delivery.DELIVERED);

        DurableEngine after = engines.start(declaringOrder());
        // The same payload sent now is refused; the stored one is read as declared, and the instance ends.
        assertThat(after.client().signal(id, "payment", new NotedPayment("pay-2", 100, "gift")).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_WRONG_PAYLOAD);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"pay-1\"");
    }

    private static Type listOf(Class<?> element) {
        return new ParameterizedType() {
            @Override
            public Type[] getActualTypeArguments() {
                return new Type[] {element};
            }

            @Override
            public Type getRawType() {
                return List.class;
            }

            @Override
            public @Nullable Type getOwnerType() {
                return null;
            }

            @Override
            public String getTypeName() {
                return "java.util.List<" + element.getName() + ">";
            }
        };
    }
}
