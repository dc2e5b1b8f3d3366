package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.Outcome;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployClassifier.Classification;
import dev.durable.runtime.DeployClassifier.Verdict;
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

    private static Classification classify(MachineRegistry machines, int version, String step, String... states) {
        return new DeployClassifier(machines, new JacksonJsonCodec()).classify("order", version, step,
                Arrays.asList(states));
    }

    @Test
    void rowsOfARegisteredVersionWhoseStateReadsWholeAreRunnable() {
        Classification classification = classify(MachineRegistry.of(firstVersion()), 1, "pay", STORED);

        assertThat(classification).isEqualTo(new Classification(Verdict.RUNNABLE, 1, "pay", List.of(), null));
    }

    /** Still registered on this node: no upcast, the row runs on its own version, as before. */
    @Test
    void rowsOfAVersionStillRegisteredAreNotUpcast() {
        Classification classification = classify(MachineRegistry.of(firstVersion(), upcastingVersion2()), 1, "send",
                STORED);

        assertThat(classification).isEqualTo(new Classification(Verdict.RUNNABLE, 1, "send", List.of(), null));
    }

    @Test
    void rowsAnUpcasterAndAFormerStepNameBringToTheCurrentVersionAreRunnableAndSaySo() {
        Classification classification = classify(MachineRegistry.of(upcastingVersion2()), 1, "send", STORED);

        assertThat(classification).isEqualTo(new Classification(Verdict.RUNNABLE, 2, "ship", List.of(),
                "upcast from v1 to v2; step 'send' runs as 'ship'"));
    }

    @Test
    void aStepTheVersionDoesNotDeclareIsMissing() {
        Classification classification = classify(MachineRegistry.of(upcastingVersion2()), 2, "wrap",
                "{\"id\": \"o-1\"}");

        assertThat(classification.verdict()).isEqualTo(Verdict.STEP_MISSING);
        assertThat(classification.detail()).isEqualTo("order v2 declares no step 'wrap' (steps: [pay, ship], former"
                + " names: [send])");
    }

    @Test
    void aVersionNeitherRegisteredNorUpcastIsNotRegistered() {
        Classification classification = classify(MachineRegistry.of(current(2).build()), 1, "pay", STORED);

        assertThat(classification).isEqualTo(new Classification(Verdict.VERSION_NOT_REGISTERED, null, null,
                List.of(), "this node runs order versions [2], and upcasts none from v1"));
        assertThat(new DeployClassifier(MachineRegistry.of(current(2).build()), new JacksonJsonCodec())
                .classify("invoice", 1, "pay", List.of()).detail())
                .isEqualTo("this node does not run machine invoice");
    }

    @Test
    void aStateThatCannotBeReadDoesNotBindAndSaysWhyInOneLine() {
        Classification classification = classify(MachineRegistry.of(current(1).build()), 1, "pay",
                "{\"id\": [1, 2], \"reservationId\": \"R-7\"}");

        assertThat(classification.verdict()).isEqualTo(Verdict.DOES_NOT_BIND);
        assertThat(classification.detail()).startsWith("Cannot read JSON as " + Order.class.getName())
                .doesNotContain("\n").hasSizeLessThanOrEqualTo(DeployClassifier.MAX_DETAIL);
    }

    /** The scenario of issue 18: the property was renamed and the version left at 1. */
    @Test
    void aStateThatWouldLoseAPropertyBindsLossilyNamingEveryPathAnySampleLoses() {
        Classification classification = classify(MachineRegistry.of(current(1).build()), 1, "pay",
                "{\"id\": \"o-1\", \"reservationId\": \"R-1\"}", STORED,
                "{\"id\": \"o-3\", \"reservation\": \"R-3\", \"note\": \"fragile\"}");

        assertThat(classification.verdict()).isEqualTo(Verdict.BINDS_LOSSILY);
        assertThat(classification.droppedPaths()).containsExactly("$.reservation", "$.note");
        assertThat(classification.detail()).contains("would lose [$.reservation]");
    }

    @Test
    void anUpcastThatStillLosesAPropertyBindsLossily() {
        MachineDefinition forgetful = current(2).upcaster(1, stored -> stored).build();

        Classification classification = classify(MachineRegistry.of(forgetful), 1, "pay", STORED);

        assertThat(classification.verdict()).isEqualTo(Verdict.BINDS_LOSSILY);
        assertThat(classification.runsOnVersion()).isEqualTo(2);
        assertThat(classification.detail()).startsWith("The stored state of order v1, upcast to v2, would lose"
                + " [$.reservation]");
    }

    @Test
    void anUpcasterThatThrowsReturnsNothingOrSomethingUnreadableFailsTheUpcast() {
        MachineDefinition throwing = current(2).upcaster(1, stored -> {
            throw new IllegalStateException("no reservation in " + stored.get("id"));
        }).build();
        MachineDefinition returningNull = current(2).upcaster(1, stored -> null).build();
        MachineDefinition wrongShape = current(2).upcaster(1, stored -> ((ObjectNode) stored).putArray("id"))
                .build();

        Classification threw = classify(MachineRegistry.of(throwing), 1, "pay", STORED);
        assertThat(threw.verdict()).isEqualTo(Verdict.UPCAST_FAILED);
        assertThat(threw.detail()).isEqualTo("Upcasting the state of order v1 to v2 failed: the upcaster from"
                + " version 1 threw java.lang.IllegalStateException: no reservation in \"o-1\"; the step was not run,"
                + " and the row's state, version and step are kept as stored");
        assertThat(classify(MachineRegistry.of(returningNull), 1, "pay", STORED).detail())
                .contains("the upcaster from version 1 returned null");
        Classification shape = classify(MachineRegistry.of(wrongShape), 1, "pay", STORED);
        assertThat(shape.verdict()).isEqualTo(Verdict.UPCAST_FAILED);
        assertThat(shape.detail()).startsWith("Upcasting the state of order v1 to v2 failed: the upcast state cannot"
                + " be read as " + Order.class.getName());
    }

    @Test
    void theWorstSampleDecidesAndNoSampleIsJudgedAsANullState() {
        MachineRegistry machines = MachineRegistry.of(current(1).build());

        assertThat(classify(machines, 1, "pay", "{\"id\": \"o-1\"}", STORED, "{\"id\": {}}").verdict())
                .isEqualTo(Verdict.DOES_NOT_BIND);
        assertThat(classify(machines, 1, "pay").verdict()).isEqualTo(Verdict.RUNNABLE);
        assertThat(classify(machines, 1, "gone").verdict()).isEqualTo(Verdict.STEP_MISSING);
    }
}
