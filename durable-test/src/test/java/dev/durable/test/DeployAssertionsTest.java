package dev.durable.test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.InFlightReport;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's deploy assertion against an exported in-flight report: it passes when the code can run every
 * unfinished instance, and fails listing, readably, every group it cannot run.
 */
class DeployAssertionsTest {

    record Line(String sku, int qty) {
    }

    /** The order as production stores it: lines as an array. */
    record Order(String reservation, List<Line> lines) {
    }

    /** The next release's order: lines as a map of quantities by SKU, which a stored array does not read as. */
    record RestructuredOrder(String reservation, Map<String, Integer> lines) {
    }

    @TempDir
    Path directory;

    /** What production had in flight: two groups of orders at v1 and a failed one, exported to a file. */
    private Path exported() {
        InFlightReport report = new InFlightReport(Instant.parse("2026-03-01T04:05:06Z"), 50, 10_000, 10_000, true,
                List.of(group("pay", InstanceStatus.AWAITING_SIGNAL, 1234), group("ship", InstanceStatus.RUNNABLE, 7)),
                List.of(group("wrap", InstanceStatus.FAILED, 2)));
        Path file = directory.resolve("in-flight.json");
        report.write(file);
        return file;
    }

    private static InFlightReport.Group group(String step, InstanceStatus status, long count) {
        return new InFlightReport.Group("order", 1, step, status, count, true, (int) Math.min(count, 50),
                List.of(new InFlightReport.Shape(List.of("$: object", "$.lines: array", "$.lines[]: object",
                        "$.lines[].qty: number", "$.lines[].sku: string", "$.reservation: string"),
                        (int) Math.min(count, 50))),
                Map.of());
    }

    private static MachineDefinition order(Class<?> state, String... steps) {
        MachineDefinition.Builder<Object> builder = MachineDefinition.builder("order", 1, (java.lang.reflect.Type) state)
                .initialStep(steps[0]);
        for (String step : steps) {
            builder.step(step, (s, ctx) -> Outcome.done());
        }
        return builder.build();
    }

    @Test
    void passesWhenTheCodeCanRunEveryUnfinishedInstance() {
        MachineRegistry machines = MachineRegistry.of(order(Order.class, "pay", "ship"));

        assertThatCode(() -> DeployAssertions.assertCanRun(machines, exported())).doesNotThrowAnyException();
    }

    @Test
    void failsListingEveryGroupTheCodeCannotRunWithWhatToDo() {
        Path file = exported();
        MachineRegistry machines = MachineRegistry.of(order(RestructuredOrder.class, "pay"));

        assertThatThrownBy(() -> DeployAssertions.assertCanRun(machines, new JacksonJsonCodec(), file))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("The code cannot run 2 groups of unfinished instances in flight in "
                        + file.toAbsolutePath() + " (taken at 2026-03-01T04:05:06Z):" + System.lineSeparator()
                        + "  - 1234 instances of machine order v1 at step 'pay' (awaiting_signal) cannot run on this"
                        + " code: DOES_NOT_BIND (1 of 1 sampled states do not read: Cannot read JSON as "
                        + RestructuredOrder.class.getName())
                .hasMessageContaining("Make the state type read the stored state, add an upcaster that rewrites it")
                .hasMessageContaining("  - 7 instances of machine order v1 at step 'ship' (runnable) cannot run on"
                        + " this code: STEP_MISSING (order v1 declares the steps [pay], not 'ship').")
                .hasMessageContaining("Failed instances it could not run if an operator retried them:"
                        + System.lineSeparator() + "  - 2 instances of machine order v1 at step 'wrap' (failed) would"
                        + " not run if retried: STEP_MISSING");
    }

    @Test
    void failsForAVersionTheCodeNoLongerRegisters() {
        MachineDefinition v2 = MachineDefinition.builder("order", 2, Order.class)
                .step("pay", (s, ctx) -> Outcome.done()).build();

        assertThatThrownBy(() -> DeployAssertions.assertCanRun(MachineRegistry.of(v2), exported()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1234 instances of machine order v1 at step 'pay' (awaiting_signal) cannot run"
                        + " on this code: VERSION_NOT_REGISTERED (this code registers order [v2], not v1). Register"
                        + " order v1 again");
    }

    @Test
    void aFileThatIsNoReportIsAnErrorNamingTheFileNotAFailedAssertion() {
        Path missing = directory.resolve("nowhere.json");

        assertThatThrownBy(() -> DeployAssertions.assertCanRun(MachineRegistry.of(order(Order.class, "pay")),
                missing)).isInstanceOf(InFlightReport.UnreadableFileException.class)
                .hasMessage("In-flight report " + missing.toAbsolutePath() + " does not exist");
    }
}
