package dev.durable.runtime.deploy;

import dev.durable.InFlightReport;
import dev.durable.InstanceStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Turns what {@link InFlightRepository} read into an {@link InFlightReport}: the sampled states become their distinct
 * shapes (docs/DESIGN.md, "What is in flight"), and no stored value is kept.
 */
public final class InFlightReports {

    /** The most common shape first; shapes seen as often in path order, so a report is the same every time. */
    private static final Comparator<InFlightReport.Shape> SHAPE_ORDER = Comparator
            .comparingInt(InFlightReport.Shape::instances).reversed()
            .thenComparing(shape -> String.join("\n", shape.paths()));

    private InFlightReports() {
    }

    public static InFlightReport of(InFlightRepository.Inventory inventory) {
        List<InFlightReport.Group> unfinished = new ArrayList<>();
        List<InFlightReport.Group> failed = new ArrayList<>();
        for (InFlightRepository.SampledGroup sampled : inventory.groups()) {
            InFlightReport.Group group = group(sampled, inventory.signals().getOrDefault(sampled.key(), Map.of()));
            (group.status() == InstanceStatus.FAILED ? failed : unfinished).add(group);
        }
        return new InFlightReport(inventory.takenAt(), InFlightRepository.SAMPLE_SIZE,
                InFlightRepository.COUNT_LIMIT, InFlightRepository.SIGNAL_LIMIT, inventory.signalsComplete(),
                unfinished, failed);
    }

    static InFlightReport.Group group(InFlightRepository.SampledGroup sampled, Map<String, Long> pendingSignals) {
        InFlightRepository.GroupKey key = sampled.key();
        return new InFlightReport.Group(key.machine(), key.version(), key.step(), key.status(), sampled.count(),
                sampled.countExact(), sampled.states().size(), shapes(sampled.states()), pendingSignals);
    }

    static List<InFlightReport.Shape> shapes(List<@Nullable String> states) {
        Map<List<String>, Integer> seen = new LinkedHashMap<>();
        for (String state : states) {
            seen.merge(StateShapes.of(state), 1, Integer::sum);
        }
        List<InFlightReport.Shape> shapes = new ArrayList<>();
        seen.forEach((paths, instances) -> shapes.add(new InFlightReport.Shape(paths, instances)));
        shapes.sort(SHAPE_ORDER);
        return shapes;
    }
}
