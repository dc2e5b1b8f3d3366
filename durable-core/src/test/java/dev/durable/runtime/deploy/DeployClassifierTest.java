package dev.durable.runtime.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.Outcome;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployCheck.Verdict;
import dev.durable.runtime.DeployCheck.Verdict.Kind;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The deploy check's verdict on stored rows (docs/DESIGN.md, "Lossy states" and "Upcasting"): what this node's
 * machines would do with rows of a (machine, version, step), judged from sample states through the preparation every
 * picked row goes through.
 */
class DeployClassifierTest {

    /** The order's state as version 1 stored it. */
    record OrderV1(String id, String reservation) {
    }

    /** The order's state after the rename: {@code reservation} became {@code reservationId}. */
    record Order(String id, String reservationId) {
    }

    private static final String STORED = "{\"id\": \"o-1\", \"reservation\": \"R-7\"}";

    private static MachineDefinition.Builder<Order> current(int version) {
        return MachineDefinition.builder("order", version, Order.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> Outcome.next("ship", state))
                .step("ship", (state, ctx) -> Outcome.done());
    }

    private static MachineDefinition firstVersion() {
        return MachineDefinition.builder("order", 1, OrderV1.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> Outcome.next("send", state))
                .step("send", (state, ctx) -> Outcome.done())
                .build();
    }

    /** Version 2, which renames the property of version 1's states and its step 'send'. */
    private static MachineDefinition upcastingVersion2() {
        return current(2).formerStepNames("ship", "send")
                .upcaster(1, stored -> {
                    ObjectNode order = (ObjectNode) stored;
                    order.set("reservationId", order.remove("reservation"));
                    return order;
                })
                .build();
    }

    private static Verdict classify(MachineRegistry machines, int version, String step, String... states) {
        return new DeployClassifier(machines, new JacksonJsonCodec()).classify("order", version, step,
                Arrays.asList(states));
    }

    @Test
    void rowsOfARegisteredVersionWhoseStateReadsWholeAreRunnable() {
        Verdict verdict = classify(MachineRegistry.of(firstVersion()), 1, "pay", STORED);

        assertThat(verdict).isEqualTo(new Verdict(Kind.RUNNABLE, "", List.of(), null, null));
    }

    /** Still registered on this node: no upcast, the row runs on its own version, as before. */
    @Test
    void rowsOfAVersionStillRegisteredAreNotUpcast() {
        Verdict verdict = classify(MachineRegistry.of(firstVersion(), upcastingVersion2()), 1, "send",
                STORED);

        assertThat(verdict).isEqualTo(new Verdict(Kind.RUNNABLE, "", List.of(), null, null));
    }

    @Test
    void rowsAnUpcasterAndAFormerStepNameBringToTheCurrentVersionAreRunnableAndSaySo() {
        Verdict verdict = classify(MachineRegistry.of(upcastingVersion2()), 1, "send", STORED);

        assertThat(verdict).isEqualTo(new Verdict(Kind.RUNNABLE,
                "upcast from v1 to v2; step 'send' runs as 'ship'", List.of(), 2, "ship"));
    }

    @Test
    void aStepTheVersionDoesNotDeclareIsMissing() {
        Verdict verdict = classify(MachineRegistry.of(upcastingVersion2()), 2, "wrap",
                "{\"id\": \"o-1\"}");

        assertThat(verdict.kind()).isEqualTo(Kind.STEP_MISSING);
        assertThat(verdict.reason()).isEqualTo("order v2 declares the steps [pay, ship] (former names [send]),"
                + " not 'wrap'");
    }

    @Test
    void aVersionNeitherRegisteredNorUpcastIsNotRegistered() {
        Verdict verdict = classify(MachineRegistry.of(current(2).build()), 1, "pay", STORED);

        assertThat(verdict).isEqualTo(new Verdict(Kind.VERSION_NOT_REGISTERED,
                "this code registers order [v2], not v1", List.of(), null, null));
        assertThat(new DeployClassifier(MachineRegistry.of(current(2).build()), new JacksonJsonCodec())
                .classify("invoice", 1, "pay", List.of()).reason())
                .isEqualTo("this code does not run machine invoice");
    }

    @Test
    void aStateThatCannotBeReadDoesNotBindAndSaysWhyInOneLine() {
        Verdict verdict = classify(MachineRegistry.of(current(1).build()), 1, "pay",
                "{\"id\": [1, 2], \"reservationId\": \"R-7\"}");

        assertThat(verdict.kind()).isEqualTo(Kind.DOES_NOT_BIND);
        assertThat(verdict.reason())
                .startsWith("1 of 1 sampled states do not read: Cannot read JSON as " + Order.class.getName())
                .doesNotContain("\n").hasSizeLessThanOrEqualTo(DeployClassifier.MAX_DETAIL);
    }

    /** The scenario of issue 18: the property was renamed and the version left at 1. */
    @Test
    void aStateThatWouldLoseAPropertyBindsLossilyNamingEveryPathAnySampleLoses() {
        Verdict verdict = classify(MachineRegistry.of(current(1).build()), 1, "pay",
                "{\"id\": \"o-1\", \"reservationId\": \"R-1\"}", STORED,
                "{\"id\": \"o-3\", \"reservation\": \"R-3\", \"note\": \"fragile\"}");

        assertThat(verdict.kind()).isEqualTo(Kind.BINDS_LOSSILY);
        assertThat(verdict.droppedPaths()).containsExactly("$.reservation", "$.note");
        assertThat(verdict.reason()).isEqualTo("reading the stored state as " + Order.class.getName()
                + " would drop [$.reservation, $.note], which it has no place for");
    }

    @Test
    void anUpcastThatStillLosesAPropertyBindsLossily() {
        MachineDefinition forgetful = current(2).upcaster(1, stored -> stored).build();

        Verdict verdict = classify(MachineRegistry.of(forgetful), 1, "pay", STORED);

        assertThat(verdict.kind()).isEqualTo(Kind.BINDS_LOSSILY);
        assertThat(verdict.runsAsVersion()).isEqualTo(2);
        assertThat(verdict.reason()).isEqualTo("reading the stored state, upcast to v2, as " + Order.class.getName()
                + " would drop [$.reservation], which it has no place for");
    }

    @Test
    void anUpcasterThatThrowsReturnsNothingOrSomethingUnreadableFailsTheUpcast() {
        MachineDefinition throwing = current(2).upcaster(1, stored -> {
            throw new IllegalStateException("no reservation in " + stored.get("id"));
        }).build();
        MachineDefinition returningNull = current(2).upcaster(1, stored -> null).build();
        MachineDefinition wrongShape = current(2).upcaster(1, stored -> ((ObjectNode) stored).putArray("id"))
                .build();

        Verdict threw = classify(MachineRegistry.of(throwing), 1, "pay", STORED);
        assertThat(threw.kind()).isEqualTo(Kind.UPCAST_FAILED);
        assertThat(threw.reason()).isEqualTo("Upcasting the state of order v1 to v2 failed: the upcaster from"
                + " version 1 threw java.lang.IllegalStateException: no reservation in \"o-1\"; the step was not run,"
                + " and the row's state, version and step are kept as stored");
        assertThat(classify(MachineRegistry.of(returningNull), 1, "pay", STORED).reason())
                .contains("the upcaster from version 1 returned null");
        Verdict shape = classify(MachineRegistry.of(wrongShape), 1, "pay", STORED);
        assertThat(shape.kind()).isEqualTo(Kind.UPCAST_FAILED);
        assertThat(shape.reason()).startsWith("Upcasting the state of order v1 to v2 failed: the upcast state cannot"
                + " be read as " + Order.class.getName());
    }

    @Test
    void theWorstSampleDecidesAndNoSampleIsJudgedAsANullState() {
        MachineRegistry machines = MachineRegistry.of(current(1).build());

        assertThat(classify(machines, 1, "pay", "{\"id\": \"o-1\"}", STORED, "{\"id\": {}}").kind())
                .isEqualTo(Kind.DOES_NOT_BIND);
        assertThat(classify(machines, 1, "pay").kind()).isEqualTo(Kind.RUNNABLE);
        assertThat(classify(machines, 1, "gone").kind()).isEqualTo(Kind.STEP_MISSING);
    }
}
