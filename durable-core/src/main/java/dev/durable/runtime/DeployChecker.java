package dev.durable.runtime;

import dev.durable.InFlightReport;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Judges each group of what is in flight with a {@link GroupClassifier} (docs/DESIGN.md, "The deploy check"): from the
 * database, with the sampled states as stored; from an exported report, with a skeleton document per shape.
 */
final class DeployChecker {

    private DeployChecker() {
    }

    /** The check of what the database holds now, read as {@code inventory}: each group's sampled states as stored. */
    static DeployCheck againstInventory(InFlightRepository.Inventory inventory, GroupClassifier classifier,
            MachineRegistry machines) {
        InFlightReport report = InFlightReports.of(inventory);
        Map<InFlightRepository.GroupKey, List<@Nullable String>> states = new HashMap<>();
        inventory.groups().forEach(sampled -> states.put(sampled.key(), sampled.states()));
        return check(report, machines, group -> classifier.classify(group.machine(), group.version(), group.step(),
                states.getOrDefault(new InFlightRepository.GroupKey(group.machine(), group.version(), group.step(),
                        group.status()), List.of())));
    }

    /**
     * The check of an exported report. Each shape is read as a skeleton document with its string leaves null (which
     * reads as any reference type: an enum, a UUID, a date); a shape that does not read so is tried with them empty
     * (which passes a constructor refusing null). A shape that reads with null strings is read with empty ones too,
     * for the string properties the code would drop (a null is no loss). The group's verdict is its first shape's
     * that is not runnable.
     */
    static DeployCheck againstReport(InFlightReport report, GroupClassifier classifier, MachineRegistry machines) {
        return check(report, machines, group -> verdict(group, classifier));
    }

    /** A finding per group of the report whose machine is registered: unfinished groups first, then failed ones. */
    private static DeployCheck check(InFlightReport report, MachineRegistry machines,
            Function<InFlightReport.Group, DeployCheck.Verdict> judge) {
        Set<String> registered = machines.all().stream().map(MachineDefinition::name).collect(Collectors.toSet());
        Set<String> notChecked = new TreeSet<>();
        List<DeployCheck.Finding> findings = new ArrayList<>();
        for (InFlightReport.Group group : Stream.concat(report.groups().stream(), report.failed().stream()).toList()) {
            if (registered.contains(group.machine())) {
                findings.add(new DeployCheck.Finding(group, judge.apply(group)));
            } else {
                notChecked.add(group.machine());
            }
        }
        return new DeployCheck(report, findings, notChecked);
    }

    private static DeployCheck.Verdict verdict(InFlightReport.Group group, GroupClassifier classifier) {
        if (group.shapes().isEmpty()) {
            return classifier.classify(group.machine(), group.version(), group.step(), List.of());
        }
        int index = 0;
        DeployCheck.Verdict runnable = null;
        for (InFlightReport.Shape shape : group.shapes()) {
            index++;
            DeployCheck.Verdict verdict = classify(group, shape, StateShapes.Strings.AS_NULL, classifier);
            if (verdict.kind() == DeployCheck.Verdict.Kind.DOES_NOT_BIND
                    && shape.paths().stream().anyMatch(line -> StateShapes.typeOf(line).equals("string"))) {
                DeployCheck.Verdict withEmptyStrings = classify(group, shape, StateShapes.Strings.AS_EMPTY,
                        classifier);
                verdict = withEmptyStrings.isRunnable() ? withEmptyStrings : verdict;
            } else if (verdict.isRunnable()
                    && shape.paths().stream().anyMatch(line -> StateShapes.typeOf(line).equals("string"))) {
                // A stored null is no loss, so null strings hide a renamed or removed string property: the empty
                // strings show it (a stored string is never null), unless "" does not read where null did.
                DeployCheck.Verdict withEmptyStrings = classify(group, shape, StateShapes.Strings.AS_EMPTY,
                        classifier);
                verdict = withEmptyStrings.kind() == DeployCheck.Verdict.Kind.BINDS_LOSSILY ? withEmptyStrings
                        : verdict;
            }
            if (!verdict.isRunnable()) {
                String which = group.shapes().size() == 1 ? "" : "shape " + index + " of " + group.shapes().size()
                        + " (" + shape.instances() + " of " + group.sampled() + " sampled): ";
                return new DeployCheck.Verdict(verdict.kind(), which + verdict.reason(), verdict.droppedPaths(),
                        verdict.runsAsVersion(), verdict.runsAsStep());
            }
            runnable = runnable == null ? verdict : runnable;
        }
        // How they run (after an upcast, under a step's new name) is the same for every shape of a group.
        return runnable == null ? DeployCheck.Verdict.runnable() : runnable;
    }

    private static DeployCheck.Verdict classify(InFlightReport.Group group, InFlightReport.Shape shape,
            StateShapes.Strings strings, GroupClassifier classifier) {
        List<@Nullable String> skeleton = Arrays.asList(StateShapes.skeleton(shape.paths(), strings));
        return classifier.classify(group.machine(), group.version(), group.step(), skeleton);
    }
}
