package dev.durable.dashboard;

import dev.durable.BulkResult;
import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.InstanceCounts;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.RerunResult;
import dev.durable.RetryResult;
import dev.durable.StoredSchedule;
import dev.durable.TransitionCount;
import dev.durable.WaitReason;
import dev.durable.boot.actuate.DurableEndpoint;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON the dashboard's pages read and the writes they make, under {@code <durable.dashboard.path>/api}, all
 * through the application's {@link DurableClient} and {@link DurableEngine} (docs/DESIGN.md, "Dashboard"). States
 * and results are shown only as the actuator's {@code show-values} rule allows; writes are checked by
 * {@link DashboardAccess}.
 */
@RestController
@RequestMapping("${durable.dashboard.path:/durable}/api")
public class DashboardController {

    private static final Logger log = LoggerFactory.getLogger(DashboardController.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The instance search's page when the request names none: a page, not a report. */
    static final int DEFAULT_PAGE = 50;
    /** How many history entries and children the detail of one instance shows. */
    static final int DETAIL_LIMIT = 500;
    /** The longest window of a machine's diagram: a week. */
    static final long MAX_WINDOW_MINUTES = 7 * 24 * 60;
    private static final List<String> FILTERS = List.of("machine", "version", "step", "status", "queue", "uniqueKey",
            "correlationKey", "errorContains", "waitingLongerThan", "afterId", "limit", "order");

    private final DurableEngine engine;
    private final DashboardAccess access;
    private final DashboardProperties properties;

    DashboardController(DurableEngine engine, DashboardAccess access, DashboardProperties properties) {
        this.engine = engine;
        this.access = access;
        this.properties = properties;
    }

    /** What a page needs before it reads anything: the user's rights, the CSRF token, how often to refresh. */
    @GetMapping("/session")
    public Map<String, Object> session(HttpServletRequest request) {
        Map<String, Object> session = new LinkedHashMap<>();
        session.put("user", request.getRemoteUser());
        session.put("readOnly", access.readOnly());
        String refusal = access.writeRefusal(request);
        session.put("canWrite", refusal == null);
        session.put("writeRefusal", refusal);
        session.put("showsValues", access.showsValues(request));
        session.put("writeHeader", DashboardAccess.WRITE_HEADER);
        session.put("csrf", DashboardAccess.csrf(request));
        session.put("refreshMillis", properties.getRefreshInterval().toMillis());
        session.put("statuses", Arrays.stream(InstanceStatus.values()).map(InstanceStatus::label).toList());
        return session;
    }

    /**
     * The overview: this node, each queue's instances by status and by what they wait for with the oldest runnable
     * age, the registered machines, the schedules, and what no live node can run.
     */
    @GetMapping("/overview")
    public Map<String, Object> overview() {
        DurableClient client = engine.client();
        Map<String, Object> overview = new LinkedHashMap<>();
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("id", engine.nodeId());
        node.put("state", engine.state().name().toLowerCase(java.util.Locale.ROOT));
        node.put("claims", engine.claims());
        node.put("databaseError", engine.databaseError().map(Throwable::getMessage).orElse(null));
        node.put("heldByDeployCheck", engine.heldByDeployCheck());
        overview.put("node", node);

        // The live counts alone, from the indexes of unfinished and failed rows (docs/DESIGN.md, "Counting
        // instances"): counting the done and cancelled ones would read the whole table on every refresh, so they are
        // null here ("not counted").
        InstanceCounts counts = client.countLive();
        Map<String, DurableEngine.QueueStatus> local = engine.queues();
        Set<String> names = new TreeSet<>(counts.queues());
        names.addAll(local.keySet());
        List<Map<String, Object>> queues = new ArrayList<>();
        for (String name : names) {
            Map<String, Object> queue = new LinkedHashMap<>();
            queue.put("name", name);
            InstanceCounts ofQueue = counts.queue(name);
            Map<String, @Nullable Long> byStatus = new LinkedHashMap<>();
            for (InstanceStatus status : InstanceStatus.values()) {
                boolean counted = !status.isTerminal() || status == InstanceStatus.FAILED;
                byStatus.put(status.label(), counted ? ofQueue.count(status) : null);
            }
            queue.put("statuses", byStatus);
            queue.put("waiting", reasons(ofQueue));
            Duration oldest = ofQueue.oldestReadyAge();
            queue.put("oldestRunnableMillis", oldest == null ? null : oldest.toMillis());
            queue.put("expiredLeases", ofQueue.expiredLeases());
            DurableEngine.QueueStatus mine = local.get(name);
            queue.put("concurrency", mine == null ? null : mine.concurrency());
            queue.put("claims", mine == null ? null : mine.claims());
            queue.put("paused", mine != null && mine.paused());
            queues.add(queue);
        }
        overview.put("queues", queues);

        List<Map<String, Object>> machines = new ArrayList<>();
        for (MachineDefinition machine : engine.machines().all()) {
            Map<String, Object> described = describe(machine);
            described.put("waiting", reasons(counts.machine(machine.name(), machine.version())));
            machines.add(described);
        }
        overview.put("machines", machines);
        overview.put("schedules", client.schedules().stream().map(DashboardController::describe).toList());
        overview.put("stranded", engine.stranded().stream().map(s -> Map.of("machine", s.machine(),
                "version", s.version(), "waiting", s.waiting(), "since", s.since())).toList());
        return overview;
    }

    /** A keyset page of the instances the filters select, newest or oldest first, and where the next page starts. */
    @GetMapping("/instances")
    public Map<String, Object> instances(@RequestParam Map<String, String> filters, HttpServletRequest request) {
        InstanceQuery query = query(filters);
        List<DurableInstance> page = engine.client().list(query);
        boolean values = access.showsValues(request);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("instances", page.stream().map(instance -> describe(instance, values)).toList());
        answer.put("nextAfterId", page.size() == query.limit() ? page.get(page.size() - 1).id() : null);
        return answer;
    }

    /** One instance: its row, its history oldest first, its children. */
    @GetMapping("/instances/{id}")
    public Map<String, Object> instance(@PathVariable long id, HttpServletRequest request) {
        DurableClient client = engine.client();
        DurableInstance instance = client.find(id)
                .orElseThrow(() -> new DashboardException(404, "No instance " + id));
        boolean values = access.showsValues(request);
        Map<String, Object> answer = describe(instance, values);
        answer.put("steps", engine.machines().find(instance.machine(), instance.version())
                .map(machine -> List.copyOf(machine.steps().keySet())).orElse(List.of()));
        answer.put("history", client.history(id, 0, DETAIL_LIMIT).stream().map(entry -> describe(entry, values))
                .toList());
        answer.put("children", client.children(id, 0, DETAIL_LIMIT).stream()
                .map(child -> describe(child, values)).toList());
        return answer;
    }

    /**
     * A machine's diagram: its steps, each with how many instances are at it now by status, and its transitions
     * over the last {@code minutes}, each with the events that took it (docs/DESIGN.md, "Dashboard").
     */
    @GetMapping("/machines/{name}")
    public Map<String, Object> machine(@PathVariable String name, @RequestParam(defaultValue = "60") long minutes) {
        if (minutes < 1 || minutes > MAX_WINDOW_MINUTES) {
            throw new IllegalArgumentException("minutes must be between 1 and " + MAX_WINDOW_MINUTES + ", was "
                    + minutes);
        }
        List<MachineDefinition> versions = engine.machines().all().stream()
                .filter(machine -> machine.name().equals(name)).toList();
        if (versions.isEmpty()) {
            throw new DashboardException(404, "No machine '" + name + "' is registered on this node");
        }
        MachineDefinition newest = versions.stream().max(Comparator.comparingInt(MachineDefinition::version))
                .orElseThrow();
        DurableClient client = engine.client();
        List<TransitionCount> traffic = client.transitionCounts(name,
                Instant.now().minus(Duration.ofMinutes(minutes)));
        Set<String> steps = new LinkedHashSet<>();
        steps.add(newest.initialStep());
        versions.forEach(machine -> steps.addAll(machine.steps().keySet()));
        traffic.forEach(edge -> steps.add(edge.step()));
        // A next goes to its step, an end to a node of the status it left, anything else (a retry, an await) loops.
        Map<String, Map<String, Object>> edges = new LinkedHashMap<>();
        Set<String> ends = new TreeSet<>();
        for (TransitionCount edge : traffic) {
            boolean next = edge.event() == HistoryEntry.Event.NEXT && edge.nextStep() != null;
            boolean end = !next && edge.status().isTerminal();
            String to = next ? edge.nextStep() : end ? "(" + edge.status().label() + ")" : edge.step();
            String kind = next || end ? "" : edge.event().label();
            (end ? ends : steps).add(to);
            String id = edge.step() + "->" + to + (kind.isEmpty() ? "" : ":" + kind);
            Map<String, Object> described = edges.get(id);
            if (described == null) {
                described = new LinkedHashMap<>(Map.of("id", id, "from", edge.step(), "to", to, "event", kind,
                        "count", 0L));
                edges.put(id, described);
            }
            described.put("count", (Long) described.get("count") + edge.count());
        }
        // The unfinished and failed instances at each step, from indexes in one statement: the page reads them on
        // every refresh, and the machine's ended instances, most of its rows, are not counted.
        Map<String, Map<InstanceStatus, Long>> atSteps = client.countByStep(name);
        steps.addAll(atSteps.keySet());
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (String step : steps) {
            Map<InstanceStatus, Long> now = atSteps.getOrDefault(step, Map.of());
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("id", step);
            node.put("end", false);
            node.put("initial", step.equals(newest.initialStep()));
            node.put("declared", versions.stream().anyMatch(machine -> machine.steps().containsKey(step)));
            node.put("unfinished", now.entrySet().stream().filter(entry -> !entry.getKey().isTerminal())
                    .mapToLong(Map.Entry::getValue).sum());
            node.put("failed", now.getOrDefault(InstanceStatus.FAILED, 0L));
            Map<String, Long> byStatus = new LinkedHashMap<>();
            now.forEach((status, n) -> byStatus.put(status.label(), n));
            node.put("statuses", byStatus);
            nodes.add(node);
        }
        for (String end : ends) {
            nodes.add(Map.of("id", end, "end", true));
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("name", name);
        answer.put("versions", versions.stream().map(MachineDefinition::version).toList());
        answer.put("minutes", minutes);
        answer.put("nodes", nodes);
        answer.put("edges", List.copyOf(edges.values()));
        return answer;
    }

    /** Whether this node's code can run what is in flight, a verdict per group (docs/DESIGN.md, "The deploy check"). */
    @GetMapping("/deploy-check")
    public Map<String, Object> deployCheck() {
        DeployCheck check = engine.checkDeploy();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("passed", check.passed());
        answer.put("heldByDeployCheck", engine.heldByDeployCheck());
        answer.put("takenAt", check.report().takenAt());
        answer.put("findings", check.findings().stream().map(finding -> {
            Map<String, Object> described = new LinkedHashMap<>();
            described.put("machine", finding.group().machine());
            described.put("version", finding.group().version());
            described.put("step", finding.group().step());
            described.put("status", finding.group().status().label());
            described.put("count", finding.group().count());
            described.put("verdict", finding.verdict().kind().name().toLowerCase(java.util.Locale.ROOT));
            described.put("reason", finding.verdict().reason());
            described.put("problem", finding.isProblem());
            described.put("advice", finding.isProblem() ? finding.advice() : null);
            return described;
        }).toList());
        answer.put("machinesNotChecked", List.copyOf(check.machinesNotChecked()));
        return answer;
    }

    /** Retries a failed instance, or resumes a suspended one. */
    @PostMapping("/instances/{id}/retry")
    public Map<String, Object> retry(@PathVariable long id, HttpServletRequest request) {
        access.checkWrite(request);
        RetryResult result = engine.client().retryFailed(id);
        switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> throw new DashboardException(404, "No instance " + id);
            case REFUSED_NOT_FAILED -> throw new DashboardException(409, "Instance " + id + " is "
                    + result.status() + "; only a failed or suspended instance can be retried");
            default -> {
                log.info("Dashboard: {} retried instance {} ({})", DashboardAccess.who(request), id,
                        result.outcome().label());
                return Map.of("id", id, "outcome", result.outcome().label());
            }
        }
    }

    /** Cancels an unfinished instance, with the reason the body's {@code reason} gives. */
    @PostMapping("/instances/{id}/cancel")
    public Map<String, Object> cancel(@PathVariable long id, @RequestBody(required = false)
            @Nullable Map<String, String> body, HttpServletRequest request) {
        access.checkWrite(request);
        String reason = body == null ? null : body.get("reason");
        String who = DashboardAccess.who(request);
        CancelResult result = engine.client().cancel(id, reason == null || reason.isBlank()
                ? "cancelled by " + who + " on the dashboard" : reason + " (" + who + " on the dashboard)");
        switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> throw new DashboardException(404, "No instance " + id);
            case REFUSED_TERMINAL_INSTANCE -> throw new DashboardException(409, "Instance " + id + " is "
                    + result.status() + "; only an unfinished instance can be cancelled");
            default -> {
                log.info("Dashboard: {} cancelled instance {} ({})", who, id, result.outcome().label());
                return Map.of("id", id, "outcome", result.outcome().label());
            }
        }
    }

    /**
     * An operator's repair (docs/DESIGN.md, "Operator repair"): runs an ended instance again from the body's
     * {@code step}, with its {@code state} (JSON text) when given, named in the history as the user.
     */
    @PostMapping("/instances/{id}/rerun")
    public Map<String, Object> rerun(@PathVariable long id, @RequestBody Map<String, String> body,
            HttpServletRequest request) {
        access.checkWrite(request);
        String step = body.get("step");
        if (step == null || step.isBlank()) {
            throw new IllegalArgumentException("Choose the step to rerun instance " + id + " from");
        }
        String state = body.get("state");
        JsonNode edited = null;
        if (state != null && !state.isBlank()) {
            try {
                edited = JSON.readTree(state);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("The edited state is not JSON: " + e.getOriginalMessage(), e);
            }
        }
        RerunResult result = engine.client().rerun(id, step, edited, DashboardAccess.who(request));
        switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> throw new DashboardException(404, "No instance " + id);
            case REFUSED_NOT_ENDED -> throw new DashboardException(409, "Instance " + id + " is " + result.status()
                    + "; only an ended instance (done, failed or cancelled) can be rerun");
            default -> {
                return Map.of("id", id, "outcome", result.outcome().label(), "step", step);
            }
        }
    }

    /**
     * Retries one page of the failed and suspended instances the body's {@code filter} selects (the search's
     * filters; a status other than failed and suspended is refused, so the page acted on is the one shown).
     */
    @PostMapping("/bulk-retry")
    public Map<String, Object> bulkRetry(@RequestBody Map<String, String> filters, HttpServletRequest request) {
        access.checkWrite(request);
        InstanceQuery query = query(filters);
        BulkResult result = engine.client().bulkRetry(query);
        log.info("Dashboard: {} bulk-retried {} of {} selected instances ({})", DashboardAccess.who(request),
                result.changed(), result.selected(), filters);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("selected", result.selected());
        answer.put("changed", result.changed());
        answer.put("nextAfterId", result.more() ? result.lastId() : null);
        return answer;
    }

    /** Bad input, as {@link DashboardErrors} answers it, with the search's filters named (most of it is a filter). */
    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, Object>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("error", String.valueOf(e.getMessage()), "filters", FILTERS));
    }

    /** The query the search's filters name; an empty value is no filter. */
    static InstanceQuery query(Map<String, String> given) {
        Map<String, String> filters = new TreeMap<>();
        given.forEach((name, value) -> {
            if (!FILTERS.contains(name)) {
                throw new IllegalArgumentException("Unknown filter '" + name + "'");
            }
            if (value != null && !value.isBlank()) {
                filters.put(name, value.strip());
            }
        });
        InstanceQuery query = InstanceQuery.all()
                .machine(filters.get("machine"))
                .step(filters.get("step"))
                .queue(filters.get("queue"))
                .uniqueKey(filters.get("uniqueKey"))
                .correlationKey(filters.get("correlationKey"))
                .errorContains(filters.get("errorContains"))
                .waitingLongerThan(duration(filters, "waitingLongerThan"))
                .afterId(number(filters, "afterId", 0))
                .limit((int) number(filters, "limit", DEFAULT_PAGE))
                .order(InstanceQuery.Order.fromLabel(filters.getOrDefault("order", "newest_first")));
        if (filters.containsKey("version")) {
            query = query.version((int) number(filters, "version", 0));
        }
        String statuses = filters.get("status");
        if (statuses != null) {
            query = query.statuses(Arrays.stream(statuses.split(",")).map(String::strip)
                    .map(InstanceStatus::fromLabel).toList());
        }
        return query;
    }

    /** A duration as a property takes it ({@code 30s}, {@code PT30S}): a target's search names its limit so. */
    private static @Nullable Duration duration(Map<String, String> filters, String name) {
        String value = filters.get(name);
        if (value == null) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " must be a duration such as 30s, 24h or PT24H, was '" + value
                    + "'", e);
        }
    }

    private static long number(Map<String, String> filters, String name, long otherwise) {
        String value = filters.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + value + "'", e);
        }
    }

    private static Map<String, Long> reasons(InstanceCounts counts) {
        Map<String, Long> reasons = new LinkedHashMap<>();
        for (WaitReason reason : WaitReason.values()) {
            reasons.put(reason.label(), counts.count(reason));
        }
        return reasons;
    }

    static Map<String, Object> describe(MachineDefinition machine) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("name", machine.name());
        described.put("version", machine.version());
        described.put("queue", machine.queue());
        described.put("initialStep", machine.initialStep());
        described.put("steps", List.copyOf(machine.steps().keySet()));
        described.put("stateType", machine.stateType().getTypeName());
        return described;
    }

    private static Map<String, Object> describe(StoredSchedule schedule) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("name", schedule.name());
        described.put("machine", schedule.machine());
        described.put("cron", schedule.cron());
        described.put("zone", schedule.zone());
        described.put("paused", schedule.paused());
        described.put("nextFireAt", schedule.nextFireAt());
        described.put("lastFiredAt", schedule.lastFiredAt());
        return described;
    }

    static Map<String, Object> describe(DurableInstance instance, boolean values) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("id", instance.id());
        described.put("machine", instance.machine());
        described.put("version", instance.version());
        described.put("step", instance.step());
        described.put("status", instance.status().label());
        described.put("queue", instance.queue());
        described.put("attempt", instance.attempt());
        described.put("awaits", instance.awaits());
        described.put("eligibleAt", instance.eligibleAt());
        described.put("lastError", instance.lastError());
        described.put("leaseOwner", instance.leaseOwner());
        described.put("uniqueKey", instance.uniqueKey());
        described.put("correlationKey", instance.correlationKey());
        described.put("partitionKey", instance.partitionKey());
        described.put("parentId", instance.parentId());
        described.put("createdAt", instance.createdAt());
        described.put("updatedAt", instance.updatedAt());
        described.put("state", values ? instance.stateJson() : null);
        described.put("result", values ? instance.resultJson() : null);
        return described;
    }

    /** A history entry, its patches under the actuator's rule: values masked where the state is hidden. */
    private static Map<String, Object> describe(HistoryEntry entry, boolean values) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("id", entry.id());
        described.put("at", entry.at());
        described.put("step", entry.step());
        described.put("event", entry.event().label());
        described.put("nextStep", entry.nextStep());
        described.put("status", entry.status().label());
        described.put("attempt", entry.attempt());
        described.put("node", entry.node());
        described.put("durationMillis", entry.duration() == null ? null : entry.duration().toMillis());
        described.put("error", entry.error());
        described.put("signalsConsumed", entry.signalsConsumed());
        described.put("patch", DurableEndpoint.patch(entry.patch(), values));
        described.put("upcastPatch", DurableEndpoint.patch(entry.upcastPatch(), values));
        return described;
    }
}
