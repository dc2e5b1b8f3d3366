package dev.durable.test;

import dev.durable.InFlightReport;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployCheck;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Whether the code under test can run what is in flight in production, as an exported in-flight report says: the
 * deploy check (docs/DESIGN.md, "The deploy check") as a test assertion, for a build that keeps the report of the
 * running release and checks the next one against it.
 *
 * <pre>{@code
 * @Test
 * void theNextReleaseRunsEveryOrderInFlight() {
 *     MachineRegistry machines = MachineRegistry.of(OrderMachine.definition());
 *     DeployAssertions.assertCanRun(machines, Path.of("src/test/resources/in-flight.json"));
 * }
 * }</pre>
 *
 * The report is the file {@code DurableClient.inFlight().write(path)} writes, or the answer of the starter's
 * {@code GET /actuator/durable/in-flight} saved as it is. It holds the shapes of the stored states, not their values:
 * the check reads a skeleton document of each shape, so it finds a renamed, removed or restructured property, a step
 * or a version the code no longer has; a change of a scalar's type (a string become a number) only the check against
 * the database shows ({@code GET /actuator/durable/deploy-check}, or {@code durable.deploy-check} at a node's start).
 */
public final class DeployAssertions {

    private DeployAssertions() {
    }

    /**
     * Asserts that code registering {@code machines}, reading states with a default Jackson codec, can run every
     * unfinished instance of the in-flight report in {@code inFlightFile}. Use
     * {@link #assertCanRun(MachineRegistry, JsonCodec, Path)} with the application's own JSON mapper when it differs
     * from Jackson's defaults (a Spring Boot application's does).
     *
     * @throws AssertionError                        listing every group of instances the code cannot run, with the
     *                                               count, the verdict, why and what to do
     * @throws InFlightReport.UnreadableFileException if the file is missing or not an in-flight report this durable
     *                                               reads, naming the file and where it is wrong
     */
    public static void assertCanRun(MachineRegistry machines, Path inFlightFile) {
        assertCanRun(machines, new JacksonJsonCodec(), inFlightFile);
    }

    /**
     * Asserts that code registering {@code machines}, reading states with {@code codec}, can run every unfinished
     * instance of the in-flight report in {@code inFlightFile}. In a Spring Boot application's test the codec is
     * {@code new JacksonJsonCodec(jsonMapper)} with the application's {@code JsonMapper} bean, as the starter builds
     * it. Failed instances do not fail the assertion (nothing runs them until an operator retries them), but the
     * message of a failing assertion names those that would not run if retried.
     *
     * @throws AssertionError                        listing every group of instances the code cannot run, with the
     *                                               count, the verdict, why and what to do
     * @throws InFlightReport.UnreadableFileException if the file is missing or not an in-flight report this durable
     *                                               reads, naming the file and where it is wrong
     */
    public static void assertCanRun(MachineRegistry machines, JsonCodec codec, Path inFlightFile) {
        Objects.requireNonNull(inFlightFile, "inFlightFile must not be null");
        check(machines, codec, InFlightReport.read(inFlightFile), inFlightFile.toAbsolutePath().toString());
    }

    /** As {@link #assertCanRun(MachineRegistry, JsonCodec, Path)}, for a report already read. */
    public static void assertCanRun(MachineRegistry machines, JsonCodec codec, InFlightReport report) {
        check(machines, codec, report, "the in-flight report");
    }

    private static void check(MachineRegistry machines, JsonCodec codec, InFlightReport report, String source) {
        Objects.requireNonNull(machines, "machines must not be null");
        Objects.requireNonNull(codec, "codec must not be null");
        DeployCheck check = DeployCheck.against(report, machines, codec);
        if (check.passed()) {
            return;
        }
        List<String> lines = new ArrayList<>();
        int problems = check.problems().size();
        lines.add("The code cannot run " + (problems == 1 ? "1 group" : problems + " groups")
                + " of unfinished instances in flight in " + source + " (taken at " + report.takenAt() + "):");
        check.problems().forEach(finding -> lines.add("  - " + finding.describe()));
        if (!check.problemsIfRetried().isEmpty()) {
            lines.add("Failed instances it could not run if an operator retried them:");
            check.problemsIfRetried().forEach(finding -> lines.add("  - " + finding.describe()));
        }
        if (!check.machinesNotChecked().isEmpty()) {
            lines.add("Not checked (no version registered): " + String.join(", ", check.machinesNotChecked()));
        }
        throw new AssertionError(String.join(System.lineSeparator(), lines));
    }
}
