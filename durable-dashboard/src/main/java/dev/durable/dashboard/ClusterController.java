package dev.durable.dashboard;

import dev.durable.ClusterNode;
import dev.durable.InstanceQuery;
import dev.durable.Target;
import dev.durable.TargetCheck;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.runtime.DurableEngine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The overview's view of the whole cluster, beside {@link DashboardController}'s queues and machines
 * (docs/DESIGN.md, "Dashboard"): the nodes and their state, the transitions all nodes wrote per minute, and the
 * targets with their breaches as the node's last check found them. Apart from the overview's JSON so that what
 * concerns every node stays in one place.
 */
@RestController
@RequestMapping("${durable.dashboard.path:/durable}/api")
public class ClusterController {

    /** The longest window of the throughput: an hour of minutes, each found by its own search of the history. */
    static final long MAX_THROUGHPUT_MINUTES = 60;

    private final DurableEngine engine;
    private final @Nullable DurableTargets targets;

    /** @param targets the node's targets, or null when the starter made none (an application of its own wiring) */
    ClusterController(DurableEngine engine, @Nullable DurableTargets targets) {
        this.engine = engine;
        this.targets = targets;
    }

    /**
     * The nodes; the transitions per minute over the last {@code minutes}, the current one last (two cheap reads:
     * a handful of node rows, and a search of the history's primary key per minute); and the node's targets
     * (docs/DESIGN.md, "Targets"), each with its limit, how many instances are past it and the longest wait among
     * them, and the search that lists those instances. The targets are read from the last check the node runs in the
     * background (every {@code durable.metrics.queue-depth-refresh-interval}), not checked again: the page reads this
     * every refresh interval, and the meters and the health indicator read the same check.
     */
    @GetMapping("/cluster")
    public Map<String, Object> cluster(@RequestParam(defaultValue = "15") long minutes) {
        if (minutes < 1 || minutes > MAX_THROUGHPUT_MINUTES) {
            throw new IllegalArgumentException("minutes must be between 1 and " + MAX_THROUGHPUT_MINUTES + ", was "
                    + minutes);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("nodes", nodes());
        // With history off there is nothing to count: the page says so rather than show an idle cluster.
        boolean history = engine.settings().history();
        answer.put("history", history);
        answer.put("throughput", !history ? List.of() : engine.client().throughput(Instant.now()
                .minus(Duration.ofMinutes(minutes - 1))).stream().map(minute -> Map.of("minute", minute.minute(),
                        "transitions", minute.transitions())).toList());
        List<Target> configured = targets == null ? List.of() : targets.targets();
        Optional<DurableTargets.Checked> last = targets == null ? Optional.empty() : targets.last();
        answer.put("targetsCheckedAt", last.map(DurableTargets.Checked::at).orElse(null));
        List<Map<String, Object>> described = new ArrayList<>();
        for (Target target : configured) {
            TargetCheck check = last.flatMap(checked -> checked.checks().stream()
                    .filter(candidate -> candidate.target().equals(target)).findFirst()).orElse(null);
            described.add(describe(target, check));
        }
        answer.put("targets", described);
        return answer;
    }

    /**
     * Every node the database knows, with what it runs and when its heartbeat last renewed it: this node's state as
     * it knows it itself; another's as the others judge it, live while seen within the lease TTL, else silent (its
     * claims are reaped, and its row ages out after a day).
     */
    private List<Map<String, Object>> nodes() {
        Duration live = engine.settings().leaseTtl();
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (ClusterNode node : engine.client().nodes()) {
            Map<String, Object> described = new LinkedHashMap<>();
            boolean self = node.id().equals(engine.nodeId());
            described.put("id", node.id());
            described.put("self", self);
            described.put("state", self ? engine.state().name().toLowerCase(Locale.ROOT)
                    : node.seenWithin(live) ? "live" : "silent");
            described.put("startedAt", node.startedAt());
            described.put("silenceMillis", node.silence().toMillis());
            described.put("machines", node.machines().entrySet().stream().flatMap(machine -> machine.getValue()
                    .stream().map(version -> machine.getKey() + " v" + version)).toList());
            nodes.add(described);
        }
        return nodes;
    }


    private static Map<String, Object> describe(Target target, @Nullable TargetCheck check) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("kind", target.kind().label());
        described.put("queue", target.queue());
        described.put("machine", target.machine());
        described.put("step", target.step());
        described.put("limitMillis", target.limit().toMillis());
        described.put("description", target.describe());
        // Null until the first check: "not checked yet" is not "none past it".
        described.put("breaching", check == null ? null : check.breaching());
        described.put("longestWaitMillis", check == null || check.longestWait() == null ? null
                : check.longestWait().toMillis());
        described.put("search", search(target));
        return described;
    }

    /**
     * The dashboard search's filters that list a target's breaching instances, oldest first: the target's own
     * ({@link Target#breachingFilters()}), as the actuator gives them, so the page shows what the check counted.
     */
    static String search(Target target) {
        return target.breachingFilters() + "&order=" + InstanceQuery.Order.OLDEST_FIRST.label();
    }
}
