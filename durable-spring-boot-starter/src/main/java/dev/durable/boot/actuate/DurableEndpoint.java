package dev.durable.boot.actuate;

import dev.durable.BulkResult;
import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InFlightReport;
import dev.durable.InstanceCounts;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.QueueSummary;
import dev.durable.RerunResult;
import dev.durable.RetryResult;
import dev.durable.SignalResult;
import dev.durable.StatePatch;
import dev.durable.StoredSchedule;
import dev.durable.Target;
import dev.durable.TargetCheck;
import dev.durable.WaitReason;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.LimitStatus;
import dev.durable.runtime.EngineStats;
import dev.durable.runtime.NodeState;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.dao.DataAccessException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code durable} endpoint: what this node runs and how its queues stand.
 *
 * <ul>
 *   <li>{@code GET /actuator/durable}: the node, the registered machines and, per queue, the instances by status
 *       (all nodes), the unfinished and failed ones by what they wait for ({@link WaitReason}), in all and per machine
 *       version, the age of the oldest runnable instance, expired leases not yet reaped, and this node's
 *       concurrency, its claims and whether it paused the queue; the recurring schedules of the cluster;
 *       what no live node can run (stranded instances and schedules); and the node's targets, checked now
 *       (docs/DESIGN.md, "Targets");</li>
 *   <li>{@code GET /actuator/durable/{id}}: one instance, without its state and result unless
 *       {@code management.endpoint.durable.show-values} allows them (they may hold personal data);</li>
 *   <li>{@code POST /actuator/durable/{id}} with {@code {"action":"retry"}}: makes a failed or suspended instance
 *       runnable again; with {@code {"action":"cancel","reason":"customer withdrew"}}: cancels an unfinished instance (the
 *       reason is optional); with {@code {"action":"rerun","step":"ship","state":"{...}"}}: runs an ended instance
 *       again from that step, with the edited state if given (docs/DESIGN.md, "Operator repair");</li>
 *   <li>{@code GET /actuator/durable/instances?machine=order&status=failed&limit=50}: a page of the instances the
 *       query parameters select (see {@link InstanceFilter}); {@code GET /actuator/durable/holder?uniqueKey=...}: the
 *       instance holding a unique key;</li>
 *   <li>{@code GET /actuator/durable/in-flight}: what is in flight, as the in-flight file holds it (save the answer to
 *       keep it, docs/DESIGN.md, "The in-flight file"); {@code GET /actuator/durable/deploy-check}: whether this
 *       node's code can run it, a verdict per group (docs/DESIGN.md, "The deploy check");</li>
 *   <li>{@code POST /actuator/durable/instances} with {@code {"action":"cancel","filter":{...}}} or
 *       {@code {"action":"retry","filter":{...}}}: a bulk cancel or retry of one page of the filter's instances;
 *       {@code POST /actuator/durable/holder} with {@code {"uniqueKey":"order:42","action":"cancel"}} or
 *       {@code "signal"}: cancels or signals the instance holding a unique key;</li>
 *   <li>{@code POST /actuator/durable} with {@code {"queue":"orders","action":"pause"}} or
 *       {@code {"queue":"orders","action":"resume"}}: stops or resumes picking from a queue on this node; with
 *       {@code {"schedule":"nightly","action":"pause"}} or {@code "resume"}: pauses or resumes a recurring schedule
 *       in the whole cluster.</li>
 * </ul>
 *
 * The paths are those of the discovery links at {@code /actuator} ({@code durable} and {@code durable-id}): Spring
 * Boot makes every {@link Selector @Selector} parameter a path variable named after it, so a queue action keeps
 * its queue in the body rather than under a made-up {@code {queues}} segment. Write operations are off by default
 * ({@code management.endpoint.durable.access=read-only}); set the access to {@code unrestricted} to allow them.
 * Over HTTP, {@link DurableEndpointWebExtension} answers a bad request with its reason and the allowed values; the
 * searches, look-ups by key and bulk operations are reached through it, as {@code instances} and {@code holder} in
 * place of an id.
 */
@Endpoint(id = "durable", defaultAccess = Access.READ_ONLY)
public class DurableEndpoint {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> INSTANCE_ACTIONS = List.of("retry", "cancel", "rerun");
    /** What a patch shows in place of a value its reader may not see, as Spring Boot's sanitizing does. */
    static final String HIDDEN = "******";
    /** How many history entries the read of one instance shows, oldest first. */
    static final int HISTORY_SHOWN = 1000;
    private static final List<String> QUEUE_ACTIONS = List.of("pause", "resume");
    private static final List<String> BULK_ACTIONS = List.of("retry", "cancel");
    private static final List<String> HOLDER_ACTIONS = List.of("signal", "cancel");

    private final DurableEngine engine;
    private final Show showValues;
    private final Set<String> roles;
    private final List<Target> targets;

    /**
     * @param showValues when an instance's state and result are shown
     * @param roles      the roles that may see them when {@code showValues} is {@link Show#WHEN_AUTHORIZED}
     */
    public DurableEndpoint(DurableEngine engine, Show showValues, Collection<String> roles) {
        this(engine, showValues, roles, List.of());
    }

    /**
     * @param showValues when an instance's state and result are shown
     * @param roles      the roles that may see them when {@code showValues} is {@link Show#WHEN_AUTHORIZED}
     * @param targets    the node's targets, checked on each read of the endpoint (docs/DESIGN.md, "Targets")
     */
    public DurableEndpoint(DurableEngine engine, Show showValues, Collection<String> roles, List<Target> targets) {
        this.engine = engine;
        this.showValues = showValues;
        this.roles = Set.copyOf(roles);
        this.targets = List.copyOf(targets);
    }

    @ReadOperation
    public DurableDescriptor durable() {
        EngineStats stats = engine.stats();
        NodeDescriptor node = new NodeDescriptor(engine.nodeId(), label(engine.state()),
                engine.databaseError().map(e -> e.getClass().getName() + ": " + e.getMessage()).orElse(null),
                engine.claims(), engine.zombies(), engine.hasTooManyZombies(), stats.reaperLastRun(),
                stats.reaped(), engine.heldByDeployCheck());
        List<MachineDescriptor> machines = engine.machines().all().stream().map(DurableEndpoint::describe).toList();
        Map<String, QueueSummary> summaries = new TreeMap<>();
        InstanceCounts counts = new InstanceCounts(List.of());
        String summaryError = null;
        try {
            engine.client().summarize().forEach(summary -> summaries.put(summary.queue(), summary));
            counts = engine.client().countLive();
        } catch (DataAccessException e) {
            summaryError = e.getClass().getName() + ": " + e.getMessage();
        }
        Map<String, DurableEngine.QueueStatus> local = engine.queues();
        Set<String> names = new TreeSet<>(local.keySet());
        names.addAll(summaries.keySet());
        names.addAll(counts.queues());
        Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
        for (String name : names) {
            queues.put(name, describe(summaries.get(name), counts.queue(name), local.get(name)));
        }
        List<StrandedDescriptor> stranded = engine.stranded().stream()
                .map(s -> new StrandedDescriptor(s.machine(), s.version(), s.waiting(), s.since()))
                .toList();
        List<ScheduleDescriptor> schedules = List.of();
        String schedulesError = null;
        try {
            schedules = engine.client().schedules().stream().map(DurableEndpoint::describe).toList();
        } catch (DataAccessException e) {
            schedulesError = e.getClass().getName() + ": " + e.getMessage();
        }
        List<StrandedScheduleDescriptor> strandedSchedules = engine.strandedSchedules().stream()
                .map(s -> new StrandedScheduleDescriptor(s.name(), s.machine(), s.dueSince()))
                .toList();
        List<TargetDescriptor> checked = List.of();
        String targetsError = null;
        try {
            checked = engine.client().checkTargets(targets).stream().map(DurableEndpoint::describe).toList();
        } catch (DataAccessException e) {
            targetsError = e.getClass().getName() + ": " + e.getMessage();
        }
        return new DurableDescriptor(node, machines, queues, summaryError, stranded, schedules, schedulesError,
                strandedSchedules, checked, targetsError);
    }

    private static TargetDescriptor describe(TargetCheck check) {
        Target target = check.target();
        return new TargetDescriptor(target.kind().label(), target.queue(), target.machine(), target.step(),
                target.limit(), check.breaching(), check.longestWait(), target.breachingFilters());
    }

    @ReadOperation
    public @Nullable InstanceDescriptor instance(@Selector long id, SecurityContext securityContext) {
        boolean showValues = this.showValues.isShown(securityContext, roles);
        return engine.client().find(id).map(instance -> describe(instance, showValues, history(id, showValues)))
                .orElse(null);
    }

    /**
     * The first {@link #HISTORY_SHOWN} entries of an instance's history, oldest first, their patches' values shown as
     * the state is ({@code showValues}).
     */
    private List<HistoryDescriptor> history(long id, boolean showValues) {
        return engine.client().history(id, 0, HISTORY_SHOWN).stream()
                .map(entry -> new HistoryDescriptor(entry.id(), entry.step(), entry.event().label(), entry.nextStep(),
                        entry.status().label(), entry.attempt(), entry.node(), entry.leaseToken(), entry.at(),
                        entry.duration() == null ? null : entry.duration().toMillis(), entry.error(),
                        entry.signalsConsumed(), patch(entry.patch(), showValues),
                        patch(entry.upcastPatch(), showValues)))
                .toList();
    }

    /**
     * A history entry's patch as the endpoint shows it: whole when the state is shown; else with every operation's
     * {@code value} replaced by {@link #HIDDEN}, its paths kept (they are the state type's property names and array
     * indexes, as the in-flight report's shapes show them), so a reader who may not see the state sees what changed
     * but not to what (docs/DESIGN.md, "History"). Public so that the dashboard shows patches under the same rule.
     */
    public static @Nullable JsonNode patch(@Nullable StatePatch patch, boolean showValues) {
        if (patch == null) {
            return null;
        }
        JsonNode json = patch.toJson();
        if (showValues) {
            return json;
        }
        ArrayNode hidden = JSON.getNodeFactory().arrayNode();
        for (JsonNode operation : json) {
            ObjectNode copy = ((ObjectNode) operation).deepCopy();
            if (copy.has("value")) {
                copy.put("value", HIDDEN);
            }
            hidden.add(copy);
        }
        return hidden;
    }

    /**
     * {@code POST /actuator/durable/{id}} with {@code {"action":"retry"}}: retries a failed (or resumes a suspended)
     * instance; with
     * {@code {"action":"cancel","reason":"..."}}: cancels an unfinished one; with
     * {@code {"action":"rerun","step":"...","state":"..."}}: reruns an ended one. Answers what became of it.
     *
     * @throws InvalidEndpointRequestException for an action other than {@code retry}, {@code cancel} and
     *                                         {@code rerun}, a bad step or state of a rerun, an instance
     *                                         that does not exist, a retry of one that is neither failed nor
     *                                         suspended or whose unique key another instance holds now, or a cancel
     *                                         of one that is done or failed
     */
    @WriteOperation
    public OperationResponseBody act(@Selector long id, @Nullable String action, @Nullable String reason,
            @Nullable String step, @Nullable String state, SecurityContext securityContext) {
        if (action == null || !INSTANCE_ACTIONS.contains(action)) {
            throw RejectedRequestException.badRequest(action == null ? "Name the action, e.g. {\"action\":\"retry\"}"
                    : "Unknown action '" + action + "' for an instance", "actions", INSTANCE_ACTIONS);
        }
        return switch (action) {
            case "cancel" -> cancel(id, reason);
            case "rerun" -> rerun(id, step, state, securityContext);
            default -> retry(id);
        };
    }

    /**
     * An operator's rerun (docs/DESIGN.md, "Operator repair"), named in the history as the authenticated user, or as
     * "actuator" without one.
     */
    private RerunDescriptor rerun(long id, @Nullable String step, @Nullable String state,
            SecurityContext securityContext) {
        if (step == null || step.isBlank()) {
            throw RejectedRequestException.badRequest("Name the step to rerun from, e.g. {\"action\":\"rerun\","
                    + "\"step\":\"ship\"} (and optionally the edited state as JSON text, \"state\":\"{...}\")");
        }
        JsonNode edited = null;
        if (state != null) {
            try {
                edited = JSON.readTree(state);
            } catch (JacksonException e) {
                throw RejectedRequestException.badRequest("The state is not JSON text (" + e.getOriginalMessage()
                        + "); write it as a string holding JSON, e.g. \"state\":\"{\\\"sku\\\":\\\"A-1\\\"}\"");
            }
        }
        String operator = securityContext.getPrincipal() == null ? "actuator"
                : securityContext.getPrincipal().getName();
        RerunResult result;
        try {
            result = engine.client().rerun(id, step, edited, operator);
        } catch (IllegalArgumentException e) {
            throw RejectedRequestException.badRequest(String.valueOf(e.getMessage()));
        } catch (IllegalStateException e) {
            throw RejectedRequestException.conflict(String.valueOf(e.getMessage()));
        }
        switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> throw RejectedRequestException.notFound("No instance " + id);
            case REFUSED_NOT_ENDED -> throw RejectedRequestException.conflict("Instance " + id + " is "
                    + result.status() + "; only an ended instance (done, failed or cancelled) can be rerun");
            default -> {
                return new RerunDescriptor(id, result.outcome().label(), String.valueOf(result.status()), step,
                        operator);
            }
        }
    }

    private CancelDescriptor cancel(long id, @Nullable String reason) {
        CancelResult result = engine.client().cancel(id, reason);
        switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> throw RejectedRequestException.notFound("No instance " + id);
            case REFUSED_TERMINAL_INSTANCE -> throw RejectedRequestException.conflict("Instance " + id + " is "
                    + result.status() + "; only an unfinished instance can be cancelled");
            default -> {
                return new CancelDescriptor(id, result.outcome().label(),
                        String.valueOf(result.status()));
            }
        }
    }

    private RetryDescriptor retry(long id) {
        RetryResult result;
        try {
            result = engine.client().retryFailed(id);
        } catch (IllegalStateException e) {
            throw RejectedRequestException.conflict(String.valueOf(e.getMessage()));
        }
        switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> throw RejectedRequestException.notFound("No instance " + id);
            case REFUSED_NOT_FAILED -> throw RejectedRequestException.conflict("Instance " + id + " is "
                    + result.status() + "; only a failed or suspended instance can be retried");
            default -> {
                return new RetryDescriptor(id, result.outcome().label(),
                        String.valueOf(result.status()));
            }
        }
    }

    /**
     * {@code POST /actuator/durable} with {@code {"queue":"orders","action":"pause"}} (or {@code "resume"}): pauses
     * or resumes a queue on this node, and answers how the queue stands; with {@code {"schedule":"nightly",
     * "action":"pause"}} (or {@code "resume"}): pauses or resumes a recurring schedule for the whole cluster, and
     * answers how the schedule stands.
     *
     * @throws InvalidEndpointRequestException for an action other than {@code pause} and {@code resume}, a queue
     *                                         this node does not have, a schedule that does not exist, or both a
     *                                         queue and a schedule
     */
    @WriteOperation
    public Object control(@Nullable String queue, @Nullable String schedule, @Nullable String action) {
        if (schedule != null && queue != null) {
            throw RejectedRequestException.badRequest("Name a queue or a schedule, not both", "actions",
                    QUEUE_ACTIONS);
        }
        return schedule != null ? schedule(schedule, action) : queue(queue, action);
    }

    private ScheduleDescriptor schedule(String name, @Nullable String action) {
        if (action == null || !QUEUE_ACTIONS.contains(action)) {
            throw RejectedRequestException.badRequest(action == null
                    ? "Name the action, e.g. {\"schedule\":\"" + name + "\",\"action\":\"pause\"}"
                    : "Unknown action '" + action + "' for a schedule", "actions", QUEUE_ACTIONS);
        }
        DurableClient client = engine.client();
        if (action.equals("pause")) {
            client.pauseSchedule(name);
        } else {
            client.resumeSchedule(name);
        }
        return client.findSchedule(name).map(DurableEndpoint::describe)
                .orElseThrow(() -> RejectedRequestException.notFound("No schedule '" + name + "'"));
    }

    private QueueDescriptor queue(@Nullable String queue, @Nullable String action) {
        if (action == null || !QUEUE_ACTIONS.contains(action)) {
            throw RejectedRequestException.badRequest(action == null
                    ? "Name the action, e.g. {\"queue\":\"default\",\"action\":\"pause\"}"
                    : "Unknown action '" + action + "' for a queue", "actions", QUEUE_ACTIONS);
        }
        Set<String> queues = engine.queues().keySet();
        if (queue == null || !queues.contains(queue)) {
            throw RejectedRequestException.badRequest(queue == null
                    ? "Name the queue, e.g. {\"queue\":\"default\",\"action\":\"" + action + "\"}"
                    : "Unknown queue '" + queue + "' on this node", "queues", List.copyOf(queues));
        }
        if (action.equals("pause")) {
            engine.pause(queue);
        } else {
            engine.resume(queue);
        }
        QueueSummary summary = null;
        InstanceCounts counts = new InstanceCounts(List.of());
        try {
            summary = engine.client().summarize().stream().filter(s -> s.queue().equals(queue)).findFirst()
                    .orElse(null);
            counts = engine.client().countLive().queue(queue);
        } catch (DataAccessException e) {
            // the pause or resume took effect; the counts are just not available now
        }
        return describe(summary, counts, engine.queues().get(queue));
    }

    /**
     * {@code GET /actuator/durable/instances?machine=order&status=failed,cancelled&limit=50}: a page of the instances
     * the query selects, each as {@link #instance(long, SecurityContext)} shows one. An operation over HTTP only,
     * through {@link DurableEndpointWebExtension}, which reads the query from the request's parameters.
     */
    public InstancePageDescriptor instances(InstanceQuery query, SecurityContext securityContext) {
        boolean show = showValues.isShown(securityContext, roles);
        List<DurableInstance> page = engine.client().list(query);
        long lastId = page.isEmpty() ? query.afterId() : page.get(page.size() - 1).id();
        return new InstancePageDescriptor(page.stream().map(instance -> describe(instance, show)).toList(), lastId,
                page.size() == query.limit());
    }

    /**
     * {@code GET /actuator/durable/holder?uniqueKey=order:42}: the instance holding the key now, shown as
     * {@link #instance(long, SecurityContext)} shows one. An operation over HTTP only, like
     * {@link #instances(InstanceQuery, SecurityContext)}.
     *
     * @throws InvalidEndpointRequestException when no instance holds the key, or none is named
     */
    public InstanceDescriptor holder(@Nullable String uniqueKey, SecurityContext securityContext) {
        String key = uniqueKey(uniqueKey, "/actuator/durable/holder?uniqueKey=order:42");
        boolean show = showValues.isShown(securityContext, roles);
        try {
            return engine.client().findByUniqueKey(key).map(instance -> describe(instance, show))
                    .orElseThrow(() -> RejectedRequestException.notFound(noHolder(key)));
        } catch (IllegalArgumentException e) {
            throw RejectedRequestException.badRequest(String.valueOf(e.getMessage()));
        }
    }

    /**
     * {@code POST /actuator/durable/holder} with {@code {"uniqueKey":"order:42","action":"cancel","reason":"..."}}
     * or {@code {"uniqueKey":"order:42","action":"signal","signal":"payment","payload":"{...}","dedupKey":"evt-1"}}:
     * cancels or signals the instance holding the key now, as by its id. The payload is JSON text, read into maps,
     * lists and plain values that the engine's codec stores as the same JSON.
     */
    OperationResponseBody actOnHolder(@Nullable String uniqueKey, @Nullable String action, @Nullable String reason,
            @Nullable String signal, @Nullable String payload, @Nullable String dedupKey) {
        if (action == null || !HOLDER_ACTIONS.contains(action)) {
            throw RejectedRequestException.badRequest(action == null
                    ? "Name the action, e.g. {\"uniqueKey\":\"order:42\",\"action\":\"cancel\"}"
                    : "Unknown action '" + action + "' for the holder of a unique key", "actions", HOLDER_ACTIONS);
        }
        String key = uniqueKey(uniqueKey, "{\"uniqueKey\":\"order:42\",\"action\":\"" + action + "\"}");
        try {
            return action.equals("cancel") ? cancelHolder(key, reason) : signalHolder(key, signal, payload, dedupKey);
        } catch (IllegalArgumentException e) {
            // a NUL character in the key, a payload or name that cannot be stored: nothing was written
            throw RejectedRequestException.badRequest(String.valueOf(e.getMessage()));
        }
    }

    private CancelDescriptor cancelHolder(String uniqueKey, @Nullable String reason) {
        CancelResult result = engine.client().cancelByUniqueKey(uniqueKey, reason);
        switch (result.outcome()) {
            case REFUSED_NO_KEY_HOLDER -> throw RejectedRequestException.notFound(noHolder(uniqueKey));
            case REFUSED_TERMINAL_INSTANCE -> throw RejectedRequestException.conflict("Instance " + result.instanceId()
                    + ", the holder of unique key '" + uniqueKey + "', is " + result.status()
                    + "; only an unfinished instance can be cancelled");
            default -> {
                return new CancelDescriptor(result.instanceId(), result.outcome().label(),
                        String.valueOf(result.status()));
            }
        }
    }

    private SignalDescriptor signalHolder(String uniqueKey, @Nullable String signal, @Nullable String payload,
            @Nullable String dedupKey) {
        if (signal == null || signal.isBlank()) {
            throw RejectedRequestException.badRequest("Name the signal, e.g. {\"uniqueKey\":\"" + uniqueKey
                    + "\",\"action\":\"signal\",\"signal\":\"payment\"}");
        }
        SignalResult result = engine.client().signalByUniqueKey(uniqueKey, signal, payload(payload), dedupKey);
        switch (result.delivery()) {
            case REFUSED_NO_KEY_HOLDER -> throw RejectedRequestException.notFound(noHolder(uniqueKey));
            case REFUSED_TERMINAL_INSTANCE -> throw RejectedRequestException.conflict("Instance "
                    + result.instanceId() + ", the holder of unique key '" + uniqueKey
                    + "', has ended; the signal was not stored");
            case REFUSED_UNDECLARED_SIGNAL, REFUSED_WRONG_PAYLOAD -> {
                // The holder's machine declares its signals, and this one is not among them (docs/DESIGN.md,
                // "Declared signals"): nothing was stored, and the answer says what the machine accepts.
                SignalResult.Mismatch mismatch = Objects.requireNonNull(result.mismatch());
                throw RejectedRequestException.badRequest(mismatch.reason(), "signals", mismatch.declared());
            }
            default -> {
                return new SignalDescriptor(result.instanceId(), result.delivery().label(),
                        result.wokeInstance());
            }
        }
    }

    /**
     * {@code POST /actuator/durable/instances} with {@code {"action":"cancel","reason":"...","filter":{...}}} or
     * {@code {"action":"retry","filter":{...}}}: cancels the unfinished, or retries the failed and suspended, instances
     * of one page
     * of the query (at most {@value InstanceQuery#MAX_BULK_LIMIT}), and says where the next page starts.
     */
    BulkDescriptor bulk(@Nullable String action, InstanceQuery query, @Nullable String reason) {
        if (action == null || !BULK_ACTIONS.contains(action)) {
            throw RejectedRequestException.badRequest(action == null
                    ? "Name the action, e.g. {\"action\":\"retry\",\"filter\":{\"status\":\"failed\"}}"
                    : "Unknown action '" + action + "' for instances", "actions", BULK_ACTIONS);
        }
        if (query.limit() > InstanceQuery.MAX_BULK_LIMIT) {
            throw RejectedRequestException.badRequest("A bulk " + action + " acts on at most "
                    + InstanceQuery.MAX_BULK_LIMIT + " instances per call, and the filter's limit is " + query.limit(),
                    "maxLimit", InstanceQuery.MAX_BULK_LIMIT);
        }
        DurableClient client = engine.client();
        BulkResult result;
        try {
            result = action.equals("cancel") ? client.bulkCancel(query, reason) : client.bulkRetry(query);
        } catch (IllegalArgumentException e) {
            throw RejectedRequestException.badRequest(String.valueOf(e.getMessage()));
        } catch (IllegalStateException e) {
            throw RejectedRequestException.conflict(String.valueOf(e.getMessage()));
        }
        return new BulkDescriptor(action, result.selected(), result.changed(), result.skipped(), result.lastId(),
                result.more());
    }

    /**
     * {@code GET /actuator/durable/in-flight}: what is in flight now, exactly as {@link InFlightReport#toJson()}
     * writes it, so that the answer saved to a file reads back with {@link InFlightReport#read}.
     */
    JsonNode inFlight() {
        return JSON.readTree(engine.client().inFlight().toJson());
    }

    /**
     * {@code GET /actuator/durable/deploy-check}: whether this node's code can run what is in flight in the database
     * now, a verdict per group, with what to do about each problem.
     */
    DeployCheckDescriptor deployCheck() {
        DeployCheck check = engine.checkDeploy();
        return new DeployCheckDescriptor(check.passed(), engine.heldByDeployCheck(),
                check.problems().stream().map(DurableEndpoint::describe).toList(),
                check.problemsIfRetried().stream().map(DurableEndpoint::describe).toList(),
                check.findings().stream().filter(finding -> !finding.isProblem()).map(DurableEndpoint::describe)
                        .toList(),
                List.copyOf(check.machinesNotChecked()), check.report().takenAt());
    }

    private static FindingDescriptor describe(DeployCheck.Finding finding) {
        InFlightReport.Group group = finding.group();
        DeployCheck.Verdict verdict = finding.verdict();
        return new FindingDescriptor(group.machine(), group.version(), group.step(), group.status().label(),
                group.count(), group.countExact(), verdict.kind().name().toLowerCase(Locale.ROOT), verdict.reason(), verdict.droppedPaths(),
                verdict.runsAsVersion(), verdict.runsAsStep(), finding.isProblem() ? finding.advice() : null);
    }

    private static @Nullable Object payload(@Nullable String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, Object.class);
        } catch (JacksonException e) {
            throw RejectedRequestException.badRequest("The payload is not JSON text (" + e.getOriginalMessage()
                    + "); write it as a string holding JSON, e.g. \"payload\":\"{\\\"amountCents\\\":2599}\"");
        }
    }

    private static String uniqueKey(@Nullable String uniqueKey, String example) {
        if (uniqueKey == null) {
            throw RejectedRequestException.badRequest("Name the unique key, e.g. " + example);
        }
        return uniqueKey;
    }

    private static String noHolder(String uniqueKey) {
        return "No instance holds unique key '" + uniqueKey + "'";
    }

    private static MachineDescriptor describe(MachineDefinition machine) {
        return new MachineDescriptor(machine.name(), machine.version(), machine.queue(), machine.initialStep(),
                List.copyOf(machine.steps().keySet()), machine.stateType().getTypeName(), machine.source());
    }

    private static ScheduleDescriptor describe(StoredSchedule schedule) {
        return new ScheduleDescriptor(schedule.name(), schedule.machine(), schedule.cron(), schedule.zone(),
                schedule.missPolicy().label(), schedule.declared(), schedule.paused(),
                schedule.nextFireAt(), schedule.lastFiredAt());
    }

    /** A queue: its {@code summary} (counts by status), its live {@code counts} and this node's view of it. */
    private static QueueDescriptor describe(@Nullable QueueSummary summary, InstanceCounts counts,
            DurableEngine.@Nullable QueueStatus local) {
        Map<String, Long> byStatus = new LinkedHashMap<>();
        for (InstanceStatus status : InstanceStatus.values()) {
            byStatus.put(status.label(), summary == null ? 0L : summary.count(status));
        }
        List<MachineCountsDescriptor> machines = counts.groups().stream()
                .map(group -> new MachineCountsDescriptor(group.machine(), group.version(), labels(group.counts())))
                .toList();
        return new QueueDescriptor(byStatus, summary == null ? null : summary.oldestRunnableAge(),
                summary == null ? 0 : summary.expiredLeases(), local == null ? 0 : local.concurrency(),
                local == null ? 0 : local.claims(), local != null && local.paused(),
                local != null && local.active(), labels(counts.byReason()), machines,
                local == null || local.limits() == null ? null
                        : describe(local.limits(), counts.byReason().getOrDefault(WaitReason.EXECUTING, 0L)));
    }

    private static LimitsDescriptor describe(LimitStatus limit, long executing) {
        ClusterLimits.Rate rate = limit.limits().rate();
        return new LimitsDescriptor(limit.limits().concurrency(), rate == null ? null : rate.starts(),
                rate == null ? null : rate.window(), executing, limit.executing(), limit.tokens(), limit.heldBack());
    }

    /** Counts by reason, keyed by the reasons' labels, in the reasons' order. */
    private static Map<String, Long> labels(Map<WaitReason, Long> counts) {
        Map<String, Long> labelled = new LinkedHashMap<>();
        for (WaitReason reason : WaitReason.values()) {
            labelled.put(reason.label(), counts.getOrDefault(reason, 0L));
        }
        return labelled;
    }

    /** An instance as a list shows it: without its history. */
    private static InstanceDescriptor describe(DurableInstance instance, boolean showValues) {
        return describe(instance, showValues, null);
    }

    /** An instance, with its history when {@code history} is not null (the read of one instance). */
    private static InstanceDescriptor describe(DurableInstance instance, boolean showValues,
            @Nullable List<HistoryDescriptor> history) {
        return new InstanceDescriptor(instance.id(), instance.machine(), instance.version(), instance.step(),
                instance.status().label(), instance.queue(), instance.priority(), instance.partitionKey(),
                instance.awaits(), instance.attempt(), instance.eligibleAt(), instance.lastError(),
                instance.leaseOwner(), instance.leaseExpiresAt(), instance.uniqueKey(), instance.holdsUniqueKey(),
                instance.correlationKey(), instance.parentId(), instance.createdAt(), instance.updatedAt(),
                showValues ? json(instance.stateJson()) : null,
                showValues ? json(instance.resultJson()) : null, history);
    }

    private static @Nullable JsonNode json(@Nullable String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readTree(json);
        } catch (JacksonException e) {
            return JSON.getNodeFactory().stringNode(json);
        }
    }

    private static String label(NodeState state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    /**
     * What {@code GET /actuator/durable} answers.
     *
     * @param stranded          runnable instances of machine versions no live node runs, as this node's last reaper
     *                          run found them (empty when there are none)
     * @param schedules         every recurring schedule of the cluster, by name
     * @param strandedSchedules due schedules whose machine no live node runs, as the last reaper run found them
     * @param targets           this node's targets, each as checked now (empty without targets)
     */
    public record DurableDescriptor(NodeDescriptor node, List<MachineDescriptor> machines,
            Map<String, QueueDescriptor> queues, @Nullable String queuesError, List<StrandedDescriptor> stranded,
            List<ScheduleDescriptor> schedules, @Nullable String schedulesError,
            List<StrandedScheduleDescriptor> strandedSchedules, List<TargetDescriptor> targets,
            @Nullable String targetsError) implements OperationResponseBody {
    }

    /**
     * A target as checked now (docs/DESIGN.md, "Targets").
     *
     * @param kind        {@code oldest_runnable_age} (with its queue) or {@code time_at_step} (with its machine and step)
     * @param breaching   the instances past the target
     * @param longestWait how long the one that has waited longest of them has waited; {@code null} for none
     * @param instances   the filter of {@code GET /actuator/durable/instances} that lists them
     */
    public record TargetDescriptor(String kind, @Nullable String queue, @Nullable String machine,
            @Nullable String step, Duration limit, long breaching, @Nullable Duration longestWait, String instances) {
    }

    /**
     * A recurring schedule as its row stands.
     *
     * @param missPolicy  skip, run_once or run_each
     * @param declared    whether a machine's definition declares it ({@code @DurableSchedule}) or the API created it
     * @param lastFiredAt the last tick that started an instance, if any
     */
    public record ScheduleDescriptor(String name, String machine, String cron, String zone, String missPolicy,
            boolean declared, boolean paused, Instant nextFireAt, @Nullable Instant lastFiredAt) {
    }

    /** A due schedule whose machine no live node runs: its ticks wait until a node with the machine starts. */
    public record StrandedScheduleDescriptor(String name, String machine, Instant dueSince) {
    }

    /**
     * Instances of a machine version no live node runs: not picked, waiting for a node with that version.
     *
     * @param waiting how many are due
     * @param since   when the longest-waiting became due
     */
    public record StrandedDescriptor(String machine, int version, long waiting, Instant since) {
    }

    /**
     * This node.
     *
     * @param databaseError  why the node is degraded, if it is
     * @param reaperLastRun  when this node's reaper last completed a run
     * @param reaped         expired claims this node's reaper returned to runnable since start
     */
    public record NodeDescriptor(String id, String state, @Nullable String databaseError, int claims, int zombies,
            boolean tooManyZombies, @Nullable Instant reaperLastRun, long reaped, boolean heldByDeployCheck) {
    }

    /**
     * What {@code GET /actuator/durable/deploy-check} answers.
     *
     * @param passed             whether this node's code can run every unfinished instance
     * @param heldByDeployCheck  whether this node picks from no queue because its check at start has not passed
     *                           ({@code durable.deploy-check=fail})
     * @param problems           the groups of unfinished instances the code cannot run
     * @param problemsIfRetried  the groups of failed instances the code could not run if they were retried
     * @param runnable           the groups the code runs
     * @param machinesNotChecked machines in flight of which this node registers no version
     * @param takenAt            when the database was read, by its clock
     */
    public record DeployCheckDescriptor(boolean passed, boolean heldByDeployCheck, List<FindingDescriptor> problems,
            List<FindingDescriptor> problemsIfRetried, List<FindingDescriptor> runnable,
            List<String> machinesNotChecked, Instant takenAt) implements OperationResponseBody {
    }

    /**
     * The verdict on one group of instances.
     *
     * @param count        how many instances; a lower bound when {@code countExact} is false
     * @param verdict      the verdict's kind by its lower-case label, as every status and result of the endpoint:
     *                     runnable, step_missing, version_not_registered, does_not_bind, binds_lossily or
     *                     upcast_failed
     * @param advice       what to do about a problem; null for a runnable group
     */
    public record FindingDescriptor(String machine, int version, String step, String status, long count,
            boolean countExact, String verdict, String reason, List<String> droppedPaths,
            @Nullable Integer runsAsVersion, @Nullable String runsAsStep, @Nullable String advice) {
    }

    /** A registered machine version. */
    public record MachineDescriptor(String name, int version, String queue, String initialStep, List<String> steps,
            String stateType, String source) {
    }

    /**
     * One queue.
     *
     * @param counts             instances per status, all nodes
     * @param oldestRunnableAge  how long the oldest eligible runnable instance has waited; {@code null} if none
     * @param expiredLeases      executing instances whose lease expired and that are not reaped yet
     * @param concurrency        how many of the queue's steps this node runs at once (0 if it does not work it)
     * @param claims             the queue's rows this node holds claimed now: waiting for a slot, running or committing
     * @param paused             whether this node paused the queue
     * @param polled             whether this node polls the queue (it has slots and machines on it)
     * @param reasons            its unfinished and failed instances by what they wait for, every reason present
     *                           (docs/DESIGN.md, "Counting instances"), read by a second statement right after
     *                           {@code counts}
     * @param machines           the same per machine version, for each that has such instances on the queue
     * @param limits             the queue's cluster-wide limits as this node has them, and their use; {@code null}
     *                           when this node sets none (docs/DESIGN.md, "Cluster-wide limits")
     */
    public record QueueDescriptor(Map<String, Long> counts, @Nullable Duration oldestRunnableAge, long expiredLeases,
            int concurrency, int claims, boolean paused, boolean polled, Map<String, Long> reasons,
            List<MachineCountsDescriptor> machines, @Nullable LimitsDescriptor limits)
            implements OperationResponseBody {
    }

    /**
     * A queue's cluster-wide limits and their use.
     *
     * @param concurrency  at most this many of its steps executing at once on all nodes; {@code null}: no limit
     * @param rateStarts   at most this many step starts per {@code rateWindow}; {@code null}: no rate
     * @param rateWindow   the rate's window
     * @param executing    its executing instances on all nodes now (the live counts, as {@code reasons.executing})
     * @param executingAtLastPick its executing rows on all nodes as this node's last pick counted them; {@code null}
     *                     without a concurrency limit or before the first pick
     * @param tokens       the starts its bucket allowed after this node's last pick; {@code null} without a rate or
     *                     before the first pick
     * @param heldBack     this node's picks its limits held back since the node started
     */
    public record LimitsDescriptor(@Nullable Integer concurrency, @Nullable Integer rateStarts,
            @Nullable Duration rateWindow, long executing, @Nullable Long executingAtLastPick, @Nullable Double tokens,
            long heldBack) {
    }

    /**
     * One machine version's unfinished and failed instances on a queue.
     *
     * @param reasons the instances by what they wait for, every reason present
     */
    public record MachineCountsDescriptor(String machine, int version, Map<String, Long> reasons) {
    }

    /** One instance; {@code state} and {@code result} are present only when shown. */
    /**
     * One instance.
     *
     * @param parentId the instance whose step started this one, if any
     * @param history  its first 1,000 history entries, oldest first, when one instance is read;
     *                 {@code null} in lists
     */
    public record InstanceDescriptor(long id, String machine, int version, String step, String status, String queue,
            short priority, @Nullable String partitionKey, @Nullable String awaits, int attempt, Instant eligibleAt,
            @Nullable String lastError, @Nullable String leaseOwner, @Nullable Instant leaseExpiresAt,
            @Nullable String uniqueKey, boolean holdsUniqueKey, @Nullable String correlationKey,
            @Nullable Long parentId, Instant createdAt, Instant updatedAt, @Nullable JsonNode state,
            @Nullable JsonNode result, @Nullable List<HistoryDescriptor> history) implements OperationResponseBody {
    }

    /**
     * One entry of an instance's history ({@link dev.durable.HistoryEntry}), its event and status by label.
     *
     * @param patch       what the transition changed of the state (RFC 6902), its values hidden unless
     *                    {@code show-values} shows the state to this reader; null when it changed nothing
     * @param upcastPatch what the upcast before the step changed, shown by the same rule; null without one
     */
    public record HistoryDescriptor(long id, String step, String event, @Nullable String nextStep, String status,
            int attempt, @Nullable String node, @Nullable Long leaseToken, Instant at, @Nullable Long durationMs,
            @Nullable String error, List<Long> signalsConsumed, @Nullable JsonNode patch,
            @Nullable JsonNode upcastPatch) {
    }

    /**
     * A page of instances.
     *
     * @param lastId where the next page starts: pass it as {@code afterId} (the query's own when the page is empty)
     * @param more   whether the page is full, so that more instances may follow
     */
    public record InstancePageDescriptor(List<InstanceDescriptor> instances, long lastId, boolean more)
            implements OperationResponseBody {
    }

    /**
     * The answer to a signal.
     *
     * @param delivery {@code delivered} or {@code deduplicated}
     */
    public record SignalDescriptor(long id, String delivery, boolean wokeInstance) implements OperationResponseBody {
    }

    /**
     * The answer to a bulk retry or cancel: one page of the filter's instances.
     *
     * @param selected how many instances the page selected
     * @param changed  how many of them were retried or cancelled
     * @param skipped  how many were left as they were (a retry whose unique key another instance holds)
     * @param lastId   where the next page starts: pass it as the filter's {@code afterId}
     * @param more     whether the page was full, so that more instances may follow
     */
    public record BulkDescriptor(String action, int selected, int changed, int skipped, long lastId, boolean more)
            implements OperationResponseBody {
    }

    /**
     * The answer to a retry.
     *
     * @param result       {@code retried} (it was failed) or {@code resumed} (it was suspended)
     * @param statusBefore the status the retry found: {@code failed} or {@code suspended}
     */
    public record RetryDescriptor(long id, String result, String statusBefore) implements OperationResponseBody {
    }

    /**
     * The answer to a cancel.
     *
     * @param result        {@code cancelled} (now) or {@code already_cancelled}
     * @param statusBefore  the status the cancel found: {@code runnable}, {@code executing}, {@code awaiting_signal},
     *                      {@code suspended}, or {@code cancelled}
     */
    public record CancelDescriptor(long id, String result, String statusBefore) implements OperationResponseBody {
    }

    /**
     * What an operator's rerun of one instance did.
     *
     * @param result       {@code rerun}
     * @param statusBefore the status it had ended in: {@code done}, {@code failed} or {@code cancelled}
     * @param step         the step it runs again from
     * @param operator     who reran it, as its history names them
     */
    public record RerunDescriptor(long id, String result, String statusBefore, String step, String operator)
            implements OperationResponseBody {
    }
}
