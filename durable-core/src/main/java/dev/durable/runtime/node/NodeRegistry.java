package dev.durable.runtime.node;

import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.StrandedInstances;
import dev.durable.runtime.StrandedSchedule;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's presence in {@code durable_node}: registered with its machine versions when the engine starts,
 * renewed on every heartbeat, removed when it stops. From these rows every node can tell which instances no live
 * node can run ({@link #watchStranded()}, on each reaper run): they are not picked (a node with their version may
 * still come) but made visible: {@code DurableEngine.stranded()}, and a WARN once per machine version while they
 * wait, an INFO when they no longer do.
 */
public final class NodeRegistry {

    private static final Logger log = LoggerFactory.getLogger(NodeRegistry.class);

    private final NodeRepository nodes;
    private final String nodeId;
    private final List<NodeRepository.MachineVersion> machineVersions;
    private final Map<String, List<Integer>> versionsByMachine;
    private final Duration live;
    // Touched only by watchStranded (the reaper loop's, or reapNow's on a caller's thread), which is synchronized.
    private final Set<NodeRepository.MachineVersion> warned = new HashSet<>();
    private final Set<String> warnedSchedules = new HashSet<>();
    private volatile List<StrandedInstances> stranded = List.of();
    private volatile List<StrandedSchedule> strandedSchedules = List.of();
    private volatile boolean failing;
    private boolean watchFailing;

    /** @param live how long a registration counts as a live node's without renewal ({@code lease-ttl}) */
    public NodeRegistry(NodeRepository nodes, String nodeId, MachineRegistry machines, Duration live) {
        this.nodes = nodes;
        this.nodeId = nodeId;
        // The versions it runs: those it registers, and the older ones their highest version upcasts, whose rows it
        // picks too (docs/DESIGN.md, "Upcasting"), so that they are not reported stranded.
        this.versionsByMachine = new TreeMap<>();
        machines.all().stream().map(MachineDefinition::name).distinct().forEach(name ->
                versionsByMachine.put(name, List.copyOf(machines.runnableVersions(name))));
        this.machineVersions = versionsByMachine.entrySet().stream()
                .flatMap(entry -> entry.getValue().stream()
                        .map(version -> new NodeRepository.MachineVersion(entry.getKey(), version)))
                .toList();
        // A node is live while its registration is younger than a lease: its heartbeat renews it far more often.
        this.live = live;
    }

    /**
     * Registers this node, or renews its registration (on start and on every heartbeat). A failure never stops the
     * heartbeat it rides on: it is said once, and the next beat tries again.
     */
    public void renew() {
        try {
            nodes.register(nodeId, machineVersions);
            if (failing) {
                failing = false;
                log.info("Node {} is registered in durable_node again", nodeId);
            }
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Could not register node {} in durable_node ({}); other nodes may report its machines'"
                        + " instances as stranded. If the table is missing, apply {}", nodeId, e.toString(),
                        DurableSchema.SQL_SCRIPTS);
            }
        }
    }

    /** Removes this node's registration (on stop); a failure is left to age out. */
    public void forget() {
        try {
            nodes.forget(nodeId);
        } catch (RuntimeException e) {
            log.warn("Could not remove node {} from durable_node; it ages out instead: {}", nodeId, e.toString());
        }
    }

    /**
     * Looks for stranded instances and says what changed; on the reaper's thread. A failure is said once and
     * never disturbs the reaper it rides with.
     */
    public synchronized void watchStranded() {
        List<StrandedInstances> found;
        List<StrandedSchedule> foundSchedules;
        try {
            nodes.forgetDead();
            found = nodes.stranded(live).stream()
                    .map(s -> new StrandedInstances(s.machine(), s.version(), s.waiting(), s.since()))
                    .toList();
            foundSchedules = nodes.strandedSchedules(live);
            watchFailing = false;
        } catch (RuntimeException e) {
            if (!watchFailing) {
                watchFailing = true;
                log.warn("Could not look for stranded instances and schedules: {}", e.toString());
            }
            return;
        }
        Set<NodeRepository.MachineVersion> now = found.stream()
                .map(s -> new NodeRepository.MachineVersion(s.machine(), s.version()))
                .collect(Collectors.toSet());
        for (StrandedInstances s : found) {
            if (warned.add(new NodeRepository.MachineVersion(s.machine(), s.version()))) {
                log.warn("{} instances of machine {} v{} are waiting (since {}), but no live node runs {} v{} (this"
                        + " node runs {}); they are not picked and wait until a node with that version starts",
                        s.waiting(), s.machine(), s.version(), s.since(), s.machine(), s.version(),
                        versionsOf(s.machine()));
            }
        }
        warned.removeIf(pair -> {
            if (!now.contains(pair)) {
                log.info("Instances of machine {} v{} are no longer stranded", pair.machine(), pair.version());
                return true;
            }
            return false;
        });
        stranded = found;
        watchSchedules(foundSchedules);
    }

    private void watchSchedules(List<StrandedSchedule> found) {
        Set<String> now = found.stream().map(StrandedSchedule::name).collect(Collectors.toSet());
        for (StrandedSchedule s : found) {
            if (warnedSchedules.add(s.name())) {
                log.warn("Schedule {} is due since {}, but no live node runs machine {} (this node runs {}); its ticks"
                        + " wait until a node with the machine starts, then follow the schedule's miss policy",
                        s.name(), s.dueSince(), s.machine(), versionsOf(s.machine()));
            }
        }
        warnedSchedules.removeIf(name -> {
            if (!now.contains(name)) {
                log.info("Schedule {} is no longer stranded", name);
                return true;
            }
            return false;
        });
        strandedSchedules = found;
    }

    /** The due schedules the last watch found no live node to fire. */
    public List<StrandedSchedule> strandedSchedules() {
        return strandedSchedules;
    }

    /** What the last watch found. */
    public List<StrandedInstances> stranded() {
        return stranded;
    }

    private String versionsOf(String machine) {
        List<Integer> versions = versionsByMachine.get(machine);
        return versions == null ? "no version of " + machine
                : machine + " " + versions.stream().map(v -> "v" + v).collect(Collectors.joining(", "));
    }
}
