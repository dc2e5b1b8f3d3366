package dev.durable.runtime;

import dev.durable.InFlightReport;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.deploy.DeployVerdicts;
import dev.durable.runtime.deploy.DeployClassifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Whether a node's code can run what is in flight (docs/DESIGN.md, "The deploy check"): a {@link Verdict} for each
 * group of an {@link InFlightReport}, judged against the machines a {@link MachineRegistry} registers and the
 * {@link JsonCodec} that reads their states.
 *
 * <p>Against the database ({@link DurableEngine#checkDeploy()}, and at every node's start as
 * {@link EngineSettings#deployCheck()} says) the stored states of each group's sample are read as they are. Against an
 * exported report ({@link #against(InFlightReport, MachineRegistry, JsonCodec)}, which holds shapes only), each shape
 * is read as a skeleton document: its structure as stored, with neutral leaves (numbers 0, booleans false, strings
 * null and, if that fails, empty). So a report finds a renamed, removed or restructured property, a missing step or
 * version; a change of a scalar's type (a string become a number) only the database shows.
 *
 * <p>Groups of machines the registry has no version of at all are not judged: they are another application's, or
 * were retired ({@link #machinesNotChecked()}; a node reports rows no live node can run as stranded).
 */
public final class DeployCheck {

    /** What a node does with the check at its start ({@code durable.deploy-check}). */
    public enum Mode {
        /** No check. */
        OFF,
        /** Check, and log a WARN for each group the node's code cannot run. */
        WARN,
        /**
         * Check, and pick from no queue while a group of unfinished instances cannot run: the node says why in its
         * log and health, checks again on every reaper run, and starts picking once none is left.
         */
        FAIL
    }

    /**
     * What a node's code would do with the instances of one group.
     *
     * @param kind          the verdict
     * @param reason        why, for a person: empty when runnable as they are
     * @param droppedPaths  for {@link Kind#BINDS_LOSSILY}, the stored paths reading would drop; for
     *                      {@link Kind#SIGNAL_DOES_NOT_BIND}, the paths of the pending payloads reading would drop;
     *                      else empty
     * @param runsAsVersion when the instances run after an upcast, the version they run as; else null
     * @param runsAsStep    when the instances run at a step of another name (a step's former name), that step
     */
    public record Verdict(Kind kind, String reason, List<String> droppedPaths, @Nullable Integer runsAsVersion,
            @Nullable String runsAsStep) {

        /** The verdicts, from the one that needs nothing to the ones that need the author. */
        public enum Kind {
            /** The node's code runs them. */
            RUNNABLE,
            /** Their version does not declare the step they are at. */
            STEP_MISSING,
            /** The node registers other versions of their machine, not theirs. */
            VERSION_NOT_REGISTERED,
            /** Their stored state does not read as the version's state type. */
            DOES_NOT_BIND,
            /** Their stored state reads, but reading it drops stored properties. */
            BINDS_LOSSILY,
            /** The upcaster that brings them to a registered version fails. */
            UPCAST_FAILED,
            /**
             * Their states read, but signals pending in their inboxes do not bind to the payload type the code they
             * run on declares for their name (docs/DESIGN.md, "Declared signals"): a step reading one would fail, or
             * read it without some of its properties. Judged against the database only: an exported report holds no
             * payloads.
             */
            SIGNAL_DOES_NOT_BIND
        }

        public Verdict {
            Objects.requireNonNull(kind, "kind must not be null");
            Objects.requireNonNull(reason, "reason must not be null");
            droppedPaths = List.copyOf(droppedPaths);
        }

        /** Whether the node's code runs these instances. */
        public boolean isRunnable() {
            return kind == Kind.RUNNABLE;
        }
    }

    /** The verdict on one group of a report. */
    public record Finding(InFlightReport.Group group, Verdict verdict) {

        public Finding {
            Objects.requireNonNull(group, "group must not be null");
            Objects.requireNonNull(verdict, "verdict must not be null");
        }

        /** Whether the node's code cannot run these instances. */
        public boolean isProblem() {
            return !verdict.isRunnable();
        }

        /**
         * One line for an operator: how many instances of which machine, version, step and status, the verdict and
         * why, and what to do about it.
         */
        public String describe() {
            String what = group.describeCount() + (group.count() == 1 ? " instance" : " instances") + " of machine "
                    + group.describe();
            if (verdict.isRunnable()) {
                return what + ": runnable";
            }
            return what + (group.status() == dev.durable.InstanceStatus.FAILED ? " would not run if retried: "
                    : " cannot run on this code: ") + verdict.kind() + " (" + verdict.reason() + "). "
                    + advice();
        }

        /** What the author or the operator can do about the verdict. */
        public String advice() {
            String machine = group.machine();
            String version = "v" + group.version();
            return switch (verdict.kind()) {
                case RUNNABLE -> "";
                case VERSION_NOT_REGISTERED -> "Register " + machine + " " + version + " again (its definition"
                        + " alongside the new one, until its instances end), keep a node running " + version
                        + " until they end, or upcast them to a registered version.";
                case STEP_MISSING -> "Declare step '" + group.step() + "' in " + machine + " " + version + " again"
                        + " (or as a former name of its successor), or upcast the instances to a version that has it.";
                case DOES_NOT_BIND -> "Make the state type read the stored state, add an upcaster that rewrites it,"
                        + " or keep the version that wrote it registered until these instances end.";
                case BINDS_LOSSILY -> "Put the dropped properties back into the state type, or raise the machine's"
                        + " version and declare an upcaster from " + version + " that moves them, before these"
                        + " instances run.";
                case UPCAST_FAILED -> "Fix the upcaster; the instances are left as they are stored.";
                case SIGNAL_DOES_NOT_BIND -> "Make the declared payload type read the pending signals (put back what"
                        + " it would drop), or keep the code that declared their type running these instances until"
                        + " they consumed them.";
            };
        }
    }

    private final InFlightReport report;
    private final List<Finding> findings;
    private final Set<String> machinesNotChecked;

    DeployCheck(DeployVerdicts.Result result) {
        this(result.report(), result.findings(), result.notChecked());
    }

    DeployCheck(InFlightReport report, List<Finding> findings, Set<String> machinesNotChecked) {
        this.report = report;
        this.findings = List.copyOf(findings);
        this.machinesNotChecked = java.util.Collections.unmodifiableSet(new TreeSet<>(machinesNotChecked));
    }

    /**
     * Checks an exported report against {@code machines} and {@code codec}, as a node with them would check the
     * database: each shape of each group is read as a skeleton document (see the class comment for what that finds).
     */
    public static DeployCheck against(InFlightReport report, MachineRegistry machines, JsonCodec codec) {
        Objects.requireNonNull(report, "report must not be null");
        Objects.requireNonNull(machines, "machines must not be null");
        Objects.requireNonNull(codec, "codec must not be null");
        return new DeployCheck(DeployVerdicts.againstReport(report, new DeployClassifier(machines, codec), machines));
    }

    /** The report the check judged. */
    public InFlightReport report() {
        return report;
    }

    /** A verdict per group judged: the unfinished groups, then the failed ones, each in the report's order. */
    public List<Finding> findings() {
        return findings;
    }

    /** The groups of unfinished instances the code cannot run: what {@link Mode#FAIL} holds a node back for. */
    public List<Finding> problems() {
        return findings.stream().filter(Finding::isProblem)
                .filter(finding -> finding.group().status() != dev.durable.InstanceStatus.FAILED).toList();
    }

    /**
     * The groups of failed instances the code could not run if an operator retried them; they hold no node back,
     * since nothing runs them until that retry.
     */
    public List<Finding> problemsIfRetried() {
        return findings.stream().filter(Finding::isProblem)
                .filter(finding -> finding.group().status() == dev.durable.InstanceStatus.FAILED).toList();
    }

    /** The machines of the report the registry has no version of: their groups were not judged. */
    public Set<String> machinesNotChecked() {
        return machinesNotChecked;
    }

    /** Whether the code can run every unfinished instance: {@link #problems()} is empty. */
    public boolean passed() {
        return problems().isEmpty();
    }

    /**
     * The check for a person: whether it passed, then a line per group the code cannot run (unfinished first, then
     * failed), and the machines not checked.
     */
    public String describe() {
        List<String> lines = new ArrayList<>();
        List<Finding> problems = problems();
        List<Finding> ifRetried = problemsIfRetried();
        lines.add(problems.isEmpty()
                ? "The code can run every unfinished instance (" + findings.stream()
                        .filter(finding -> finding.group().status() != dev.durable.InstanceStatus.FAILED).count()
                        + " groups checked)"
                        + (ifRetried.isEmpty() ? "." : "; " + ifRetried.size() + " groups of failed instances would"
                                + " not run if retried:")
                : problems.size() + (problems.size() == 1 ? " group" : " groups")
                        + " of unfinished instances cannot run on this code:");
        Stream.concat(problems.stream(), ifRetried.stream()).forEach(finding -> lines.add("  - "
                + finding.describe()));
        if (!machinesNotChecked.isEmpty()) {
            lines.add("Not checked (no version registered): " + String.join(", ", machinesNotChecked));
        }
        return String.join(System.lineSeparator(), lines);
    }

    @Override
    public String toString() {
        return describe();
    }
}
