package dev.durable.runtime.deploy;

import dev.durable.InFlightReport;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployCheck;
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
 * Judges each group of what is in flight with the {@link DeployClassifier} (docs/DESIGN.md, "The deploy check"): from
 * the database, with the sampled states as stored; from an exported report, with a skeleton document per shape.
 */
public final class DeployVerdicts {

    private DeployVerdicts() {
    }

    /** What a check found, which a {@code DeployCheck} presents: a finding per group of a registered machine. */
    public record Result(InFlightReport report, List<DeployCheck.Finding> findings, Set<String> notChecked) {
    }

    /**
     * The check of what the database holds now, read as {@code inventory}: each group's sampled states as stored, and
     * the sampled payloads of its pending signals, when the inventory holds them.
     */
    public static Result againstInventory(InFlightRepository.Inventory inventory, DeployClassifier classifier,
            MachineRegistry machines) {
        InFlightReport report = InFlightReports.of(inventory);
        Map<InFlightRepository.GroupKey, List<@Nullable String>> states = new HashMap<>();
        inventory.groups().forEach(sampled -> states.put(sampled.key(), sampled.states()));
        return check(report, machines, group -> {
            InFlightRepository.GroupKey key = new InFlightRepository.GroupKey(group.machine(), group.version(),
                    group.step(), group.status());
            DeployCheck.Verdict verdict = classifier.classify(group.machine(), group.version(), group.step(),
                    states.getOrDefault(key, List.of()));
            return classifier.withPendingSignals(group.machine(), group.version(), verdict,
                    inventory.payloads().getOrDefault(key, Map.of()));
        });
    }

    /**
     * The check of an exported report. Each shape is read as a skeleton document with its string leaves null (which
     * reads as any reference type: an enum, a UUID, a date), and again with them empty: a dropped null holds nothing,
     * so only the second shows a string property the state type would drop, and it passes a constructor refusing null;
     * the first reads what an empty string does not. The group's verdict is its first shape's that is not runnable.
     */
    public static Result againstReport(InFlightReport report, DeployClassifier classifier, MachineRegistry machines) {
        return check(report, machines, group -> verdict(group, classifier));
    }

    /** A finding per group of the report whose machine is registered: unfinished groups first, then failed ones. */
    private static Result check(InFlightReport report, MachineRegistry machines,
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
        return new Result(report, findings, notChecked);
    }

    private static DeployCheck.Verdict verdict(InFlightReport.Group group, DeployClassifier classifier) {
        if (group.shapes().isEmpty()) {
            return classifier.classify(group.machine(), group.version(), group.step(), List.of());
        }
        int index = 0;
        for (InFlightReport.Shape shape : group.shapes()) {
            index++;
            DeployCheck.Verdict verdict = classify(group, shape, StateShapes.Strings.AS_NULL, classifier);
            if (shape.paths().stream().anyMatch(line -> StateShapes.typeOf(line).equals("string"))) {
                DeployCheck.Verdict withEmptyStrings = classify(group, shape, StateShapes.Strings.AS_EMPTY,
                        classifier);
                if (withEmptyStrings.kind() == DeployCheck.Verdict.Kind.BINDS_LOSSILY
                        || verdict.kind() == DeployCheck.Verdict.Kind.DOES_NOT_BIND && withEmptyStrings.isRunnable()) {
                    verdict = withEmptyStrings;
                }
            }
            if (!verdict.isRunnable()) {
                String which = group.shapes().size() == 1 ? "" : "shape " + index + " of " + group.shapes().size()
                        + " (" + shape.instances() + " of " + group.sampled() + " sampled): ";
                return new DeployCheck.Verdict(verdict.kind(), which + verdict.reason(), verdict.droppedPaths(),
                        verdict.runsAsVersion(), verdict.runsAsStep());
            }
            if (index == group.shapes().size()) {
                return verdict; // runnable, and how (an upcast, a renamed step)
            }
        }
        return new DeployCheck.Verdict(DeployCheck.Verdict.Kind.RUNNABLE, "", List.of(), null, null);
    }

    private static DeployCheck.Verdict classify(InFlightReport.Group group, InFlightReport.Shape shape,
            StateShapes.Strings strings, DeployClassifier classifier) {
        List<@Nullable String> skeleton = Arrays.asList(StateShapes.skeleton(shape.paths(), strings));
        return classifier.classify(group.machine(), group.version(), group.step(), skeleton);
    }
}
