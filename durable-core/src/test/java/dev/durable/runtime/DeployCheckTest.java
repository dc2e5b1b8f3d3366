package dev.durable.runtime;

import static dev.durable.runtime.InFlightTest.insert;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.InFlightReport;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.deploy.StateShapes;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.node.ObjectNode;

/**
 * The deploy check (docs/DESIGN.md, "The deploy check"): a verdict per group of what is in flight, from the database
 * (the sampled states as stored) and from an exported report (a skeleton per shape), with the first classifier (is
 * the version registered, the step declared, does the state read).
 */
class DeployCheckTest {

    record Line(String sku, int qty) {
    }

    /** Version 1 of the order's state. */
    record Order(String reservation, List<Line> lines) {
    }

    /** Version 3: the lines became a map of quantities by SKU, which a stored array does not read as. */
    record OrderByLines(String reservation, Map<String, Integer> lines) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private static final String V1_STATE = "{\"reservation\": \"R-1\", \"lines\": [{\"sku\": \"A\", \"qty\": 2}]}";

    private static MachineDefinition orderV1() {
        return MachineDefinition.builder("order", 1, Order.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> Outcome.next("ship", state))
                .step("ship", (state, ctx) -> Outcome.done())
                .build();
    }

    private static MachineDefinition orderV3() {
        return MachineDefinition.builder("order", 3, OrderByLines.class)
                .step("pay", (state, ctx) -> Outcome.done())
                .build();
    }

    /** Rows of every verdict the first classifier gives, and of a machine this code does not have. */
    private static void rowsOfEveryVerdict() {
        insert("order", 1, "pay", "awaiting_signal", V1_STATE);
        insert("order", 1, "pack", "runnable", V1_STATE);
        insert("order", 2, "pay", "runnable", V1_STATE);
        insert("order", 3, "pay", "runnable", V1_STATE);
        insert("order", 1, "wrap", "failed", V1_STATE);
        insert("order", 1, "ship", "failed", V1_STATE);
        insert("invoice", 1, "send", "runnable", "{}");
    }

    @Test
    void eachGroupInTheDatabaseGetsTheVerdictOfTheNodesCode() {
        rowsOfEveryVerdict();
        DurableEngine node = engines.build("new-code", UnaryOperator.identity(), orderV1(), orderV3());

        DeployCheck check = node.checkDeploy();

        assertThat(check.findings()).extracting(finding -> finding.group().describe() + " " + finding.verdict().kind())
                .containsExactly(
                        "order v1 at step 'pack' (runnable) STEP_MISSING",
                        "order v1 at step 'pay' (awaiting_signal) RUNNABLE",
                        "order v2 at step 'pay' (runnable) VERSION_NOT_REGISTERED",
                        "order v3 at step 'pay' (runnable) DOES_NOT_BIND",
                        "order v1 at step 'ship' (failed) RUNNABLE",
                        "order v1 at step 'wrap' (failed) STEP_MISSING");
        assertThat(check.passed()).isFalse();
        assertThat(check.problems()).hasSize(3);
        assertThat(check.problemsIfRetried()).singleElement()
                .satisfies(finding -> assertThat(finding.group().step()).isEqualTo("wrap"));
        assertThat(check.machinesNotChecked()).containsExactly("invoice");
        assertThat(reason(check, "pack")).isEqualTo("order v1 declares the steps [pay, ship], not 'pack'");
        assertThat(reason(check, 2)).isEqualTo("this code registers order [v1, v3], not v2");
        assertThat(reason(check, 3)).startsWith("1 of 1 sampled states do not read: Cannot read JSON as "
                + OrderByLines.class.getName()).contains("Map");
    }

    /** The payment the first release declared: it had a note. */
    record NotedPayment(String reference, String note) {
    }

    /** The payment the next release declares: the note is gone. */
    record Payment(String reference) {
    }

    private static MachineDefinition awaitingApproval(Class<?> payment) {
        return MachineDefinition.builder("approval", 1, Order.class)
                .signal("payment", payment)
                .signal("approved")
                .signal("comment", String.class)
                .step("wait", (state, ctx) -> Outcome.await("approved", state))
                .build();
    }

    /**
     * A signal stored under the first release's payload type waits in an inbox; the next release declares the type
     * without a property the stored payload has: the check against the database reports the group, naming the signal,
     * the type and the path it would drop (docs/DESIGN.md, "Declared signals"). Signals that still bind, and a group
     * without pending signals, are runnable.
     */
    @Test
    void aPendingSignalThatTheNewCodesDeclaredPayloadTypeWouldNotReadWholeIsReported() {
        dev.durable.DurableClient firstRelease = engines.clientOnly(awaitingApproval(NotedPayment.class));
        long noted = firstRelease.start("approval", new Order("R-1", List.of())).id();
        long plain = firstRelease.start("approval", new Order("R-2", List.of())).id();
        assertThat(firstRelease.signal(noted, "payment", new NotedPayment("P-1", "gift wrap")).isDelivered()).isTrue();
        assertThat(firstRelease.signal(plain, "payment", Map.of("reference", "P-2", "note", "")).isDelivered())
                .isTrue();
        assertThat(firstRelease.signal(plain, "comment", "fine").isDelivered()).isTrue();
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET step = 'later'"
                + " WHERE id = ?", plain);
        insert("approval", 1, "wait", "awaiting_signal", V1_STATE); // no pending signal at all

        // The next release: the same version, its payment type without the note.
        DurableEngine nextRelease = engines.build("next", UnaryOperator.identity(),
                MachineDefinition.builder("approval", 1, Order.class)
                        .signal("payment", Payment.class).signal("approved").signal("comment", String.class)
                        .initialStep("wait")
                        .step("wait", (state, ctx) -> Outcome.await("approved", state))
                        .step("later", (state, ctx) -> Outcome.done())
                        .build());
        DeployCheck check = nextRelease.checkDeploy();

        DeployCheck.Finding waiting = check.findings().stream()
                .filter(finding -> finding.group().step().equals("wait")
                        && finding.group().status() == InstanceStatus.RUNNABLE)
                .findFirst().orElseThrow();
        assertThat(waiting.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.SIGNAL_DOES_NOT_BIND);
        assertThat(waiting.verdict().reason()).isEqualTo("1 of 1 sampled pending 'payment' signals would not bind to "
                + Payment.class.getName() + ", the payload type approval v1 declares: reading one would drop"
                + " [$.note]");
        assertThat(waiting.verdict().droppedPaths()).containsExactly("$.note");
        assertThat(waiting.describe()).contains("cannot run on this code: SIGNAL_DOES_NOT_BIND")
                .endsWith("Make the declared payload type read the pending signals (put back what it would drop), or"
                        + " keep the code that declared their type running these instances until they consumed"
                        + " them.");
        // An empty note is a value too: that payload would lose it, and is reported as well; its comment binds.
        DeployCheck.Finding later = check.findings().stream().filter(finding -> finding.group().step().equals("later"))
                .findFirst().orElseThrow();
        assertThat(later.verdict().reason()).startsWith("1 of 1 sampled pending 'payment' signals would not bind")
                .doesNotContain("comment");
        assertThat(check.problems()).containsExactlyInAnyOrder(waiting, later);
        assertThat(check.findings()).filteredOn(finding -> finding.group().status() == InstanceStatus.AWAITING_SIGNAL)
                .singleElement().satisfies(finding -> assertThat(finding.verdict().isRunnable()).isTrue());
        // The code that stored them reads them whole; an exported report holds no payloads, so it cannot tell.
        DurableEngine sameRelease = engines.build("same", UnaryOperator.identity(),
                awaitingApproval(NotedPayment.class));
        assertThat(sameRelease.checkDeploy().findings()).extracting(finding -> finding.verdict().kind())
                .doesNotContain(DeployCheck.Verdict.Kind.SIGNAL_DOES_NOT_BIND);
        assertThat(DeployCheck.against(check.report(), MachineRegistry.of(awaitingApproval(Payment.class)),
                new JacksonJsonCodec()).findings()).extracting(finding -> finding.verdict().kind())
                .doesNotContain(DeployCheck.Verdict.Kind.SIGNAL_DOES_NOT_BIND);
    }

    @Test
    void aProblemIsDescribedForAnOperatorWithCountVerdictReasonAndWhatToDo() {
        insert("order", 2, "pay", "runnable", V1_STATE);
        insert("order", 2, "pay", "runnable", V1_STATE);
        insert("order", 1, "wrap", "failed", V1_STATE);

        DeployCheck check = engines.build("new-code", UnaryOperator.identity(), orderV1(), orderV3()).checkDeploy();

        assertThat(check.problems()).singleElement().extracting(DeployCheck.Finding::describe).asString()
                .isEqualTo("2 instances of machine order v2 at step 'pay' (runnable) cannot run on this code:"
                        + " VERSION_NOT_REGISTERED (this code registers order [v1, v3], not v2). Register order v2"
                        + " again (its definition alongside the new one, until its instances end), keep a node running"
                        + " v2 until they end, or upcast them to a registered version.");
        assertThat(check.describe()).startsWith("1 group of unfinished instances cannot run on this code:")
                .contains("1 instance of machine order v1 at step 'wrap' (failed) would not run if retried:"
                        + " STEP_MISSING");
    }

    @Test
    void aCheckWhoseOnlyProblemsAreFailedInstancesPasses() {
        insert("order", 1, "pay", "awaiting_signal", V1_STATE);
        insert("order", 1, "wrap", "failed", V1_STATE);

        DeployCheck check = engines.build("new-code", UnaryOperator.identity(), orderV1()).checkDeploy();

        assertThat(check.passed()).isTrue();
        assertThat(check.problemsIfRetried()).hasSize(1);
        assertThat(check.describe()).startsWith("The code can run every unfinished instance (1 groups checked);"
                + " 1 groups of failed instances would not run if retried:");
    }

    @Test
    void anExportedReportGetsTheVerdictsTheDatabaseGets() {
        rowsOfEveryVerdict();
        DurableEngine node = engines.build("new-code", UnaryOperator.identity(), orderV1(), orderV3());
        InFlightReport exported = node.client().inFlight();

        DeployCheck fromFile = DeployCheck.against(exported, node.machines(), new JacksonJsonCodec());
        DeployCheck fromDatabase = node.checkDeploy();

        assertThat(fromFile.findings()).extracting(finding -> finding.verdict().kind())
                .containsExactlyElementsOf(fromDatabase.findings().stream().map(f -> f.verdict().kind()).toList());
        assertThat(fromFile.machinesNotChecked()).containsExactly("invoice");
        assertThat(fromFile.report()).isEqualTo(exported);
    }

    /**
     * The documented limit of a check against a file: it holds shapes, not values, so a scalar whose type changed (a
     * string now read as a number) reads from the skeleton and fails only against the stored values.
     */
    @Test
    void aScalarTypeChangeIsSeenAgainstTheDatabaseOnly() {
        record Priced(String reservation, BigDecimal amount) {
        }
        insert("priced", 1, "pay", "runnable", "{\"reservation\": \"R-1\", \"amount\": \"twelve\"}");
        MachineDefinition priced = MachineDefinition.builder("priced", 1, Priced.class)
                .step("pay", (state, ctx) -> Outcome.done()).build();
        DurableEngine node = engines.build("new-code", UnaryOperator.identity(), priced);

        assertThat(node.checkDeploy().problems()).singleElement()
                .satisfies(finding -> assertThat(finding.verdict().kind())
                        .isEqualTo(DeployCheck.Verdict.Kind.DOES_NOT_BIND));
        assertThat(DeployCheck.against(node.client().inFlight(), node.machines(), new JacksonJsonCodec()).passed())
                .isTrue();
    }

    /** The next release of version 1's state: {@code reservation} renamed. */
    record RenamedOrder(String reservationId, List<Line> lines) {
    }

    private static MachineDefinition.Builder<RenamedOrder> renamed(int version) {
        return MachineDefinition.builder("order", version, RenamedOrder.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> Outcome.next("ship", state))
                .step("ship", (state, ctx) -> Outcome.done());
    }

    /**
     * The check answers what the runtime would do with the rows (docs/DESIGN.md, "Lossy states", "Upcasting"): a
     * renamed property without an upcaster is lossy, from the database and from the file alike (where the null string
     * of a skeleton is no loss, the empty one shows it); with the upcaster, the rows run on the new version.
     */
    @Test
    void aRenamedPropertyIsLossyUntilAnUpcasterMovesItFromTheDatabaseAndFromTheFile() {
        insert("order", 1, "pay", "awaiting_signal", V1_STATE);
        DurableEngine lossy = engines.build("renamed-in-place", UnaryOperator.identity(), renamed(1).build());
        InFlightReport exported = lossy.client().inFlight();

        for (DeployCheck check : List.of(lossy.checkDeploy(),
                DeployCheck.against(exported, lossy.machines(), new JacksonJsonCodec()))) {
            assertThat(check.problems()).singleElement().satisfies(finding -> {
                assertThat(finding.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.BINDS_LOSSILY);
                assertThat(finding.verdict().droppedPaths()).containsExactly("$.reservation");
                assertThat(finding.describe()).endsWith("BINDS_LOSSILY (reading the stored state as "
                        + RenamedOrder.class.getName() + " would drop [$.reservation], which it has no place for)."
                        + " Put the dropped properties back into the state type, or raise the machine's version and"
                        + " declare an upcaster from v1 that moves them, before these instances run.");
            });
        }

        MachineRegistry upcasting = MachineRegistry.of(renamed(2).upcaster(1, stored -> {
            ObjectNode order = (ObjectNode) stored;
            order.set("reservationId", order.remove("reservation"));
            return order;
        }).build());
        DeployCheck fromFile = DeployCheck.against(exported, upcasting, new JacksonJsonCodec());
        assertThat(fromFile.passed()).isTrue();
        assertThat(fromFile.findings()).singleElement().satisfies(finding -> {
            assertThat(finding.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.RUNNABLE);
            assertThat(finding.verdict().runsAsVersion()).isEqualTo(2);
            assertThat(finding.verdict().reason()).isEqualTo("upcast from v1 to v2");
        });
        DeployCheck fromDatabase = engines.build("upcasting", UnaryOperator.identity(),
                upcasting.all().toArray(MachineDefinition[]::new)).checkDeploy();
        assertThat(fromDatabase.passed()).isTrue();
        assertThat(fromDatabase.findings()).singleElement()
                .satisfies(finding -> assertThat(finding.verdict().runsAsVersion()).isEqualTo(2));
        MachineRegistry raisedOnly = MachineRegistry.of(renamed(2).build());
        assertThat(DeployCheck.against(exported, raisedOnly, new JacksonJsonCodec()).problems()).singleElement()
                .satisfies(finding -> assertThat(finding.verdict().kind())
                        .isEqualTo(DeployCheck.Verdict.Kind.VERSION_NOT_REGISTERED));
    }

    enum Carrier { POST, COURIER }

    /** A state whose fields each read only some leaf values: what a skeleton's neutral leaves must satisfy. */
    record Shipment(String reservation, Carrier carrier, UUID tracking, Instant sentAt, BigDecimal weight, int parcels,
            boolean insured, List<String> notes, Map<String, Integer> counts) {
    }

    /** A state that refuses a null string. */
    record Checked(String reservation) {
        Checked {
            Objects.requireNonNull(reservation, "reservation");
        }
    }

    @Test
    void aSkeletonReadsAsEnumsUuidsTimesNumbersAndAsStringsAConstructorChecks() {
        JacksonJsonCodec codec = new JacksonJsonCodec();
        Shipment shipment = new Shipment("R-1", Carrier.COURIER, UUID.randomUUID(), Instant.now(), BigDecimal.TEN, 2,
                true, List.of("fragile"), Map.of("A", 1));
        MachineRegistry machines = MachineRegistry.of(
                MachineDefinition.builder("shipment", 1, Shipment.class).step("send", (s, c) -> Outcome.done())
                        .build(),
                MachineDefinition.builder("checked", 1, Checked.class).step("send", (s, c) -> Outcome.done())
                        .build());
        InFlightReport report = report(
                group("shipment", StateShapes.of(codec.write(shipment))),
                group("checked", StateShapes.of(codec.write(new Checked("R-2")))));

        DeployCheck check = DeployCheck.against(report, machines, codec);

        assertThat(check.findings()).extracting(finding -> finding.verdict().kind())
                .containsOnly(DeployCheck.Verdict.Kind.RUNNABLE);
    }

    @Test
    void aShapeWhoseStructureChangedDoesNotReadAndNamesTheShape() {
        InFlightReport report = report(new InFlightReport.Group("order", 3, "pay", InstanceStatus.RUNNABLE, 50, true,
                50, List.of(
                        new InFlightReport.Shape(StateShapes.of("{\"reservation\": \"R\", \"lines\": {\"A\": 1}}"), 47),
                        new InFlightReport.Shape(StateShapes.of(V1_STATE), 3)), Map.of()));

        DeployCheck check = DeployCheck.against(report, MachineRegistry.of(orderV3()), new JacksonJsonCodec());

        assertThat(check.problems()).singleElement().satisfies(finding -> {
            assertThat(finding.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.DOES_NOT_BIND);
            assertThat(finding.verdict().reason()).startsWith("shape 2 of 2 (3 of 50 sampled): 1 of 1 sampled states"
                    + " do not read: Cannot read JSON as " + OrderByLines.class.getName());
        });
    }

    private static String reason(DeployCheck check, String step) {
        return check.findings().stream().filter(f -> f.group().step().equals(step)).findFirst().orElseThrow()
                .verdict().reason();
    }

    private static String reason(DeployCheck check, int version) {
        return check.findings().stream().filter(f -> f.group().version() == version).findFirst().orElseThrow()
                .verdict().reason();
    }

    private static InFlightReport.Group group(String machine, List<String> shape) {
        return new InFlightReport.Group(machine, 1, "send", InstanceStatus.RUNNABLE, 1, true, 1,
                List.of(new InFlightReport.Shape(shape, 1)), Map.of());
    }

    private static InFlightReport report(InFlightReport.Group... groups) {
        return new InFlightReport(Instant.now(), 50, 10_000, 10_000, true, List.of(groups), List.of());
    }
}
