package dev.durable.runtime.control;

import static dev.durable.runtime.control.AfterTransaction.afterCommit;
import static dev.durable.runtime.control.AfterTransaction.afterCompletion;

import dev.durable.BulkResult;
import dev.durable.CancelResult;
import dev.durable.ClusterNode;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.InFlightReport;
import dev.durable.InstanceCounts;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.QueueSummary;
import dev.durable.RerunResult;
import dev.durable.RetryResult;
import dev.durable.Schedule;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import dev.durable.StoredSchedule;
import dev.durable.Target;
import dev.durable.TargetCheck;
import dev.durable.Throughput;
import dev.durable.TransitionCount;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.observation.DurableObservations;
import dev.durable.runtime.deploy.InFlightReports;
import dev.durable.runtime.deploy.InFlightRepository;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.queue.StartClaims;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.support.StoredValues;
import dev.durable.runtime.time.ScheduleRepository;
import dev.durable.runtime.time.ScheduleTicks;
import io.micrometer.observation.ObservationRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;

/**
 * The {@link DurableClient} of an engine. Checks and serializes everything before any SQL runs, so bad input fails
 * at the call with nothing stored. Joins the caller's Spring transaction; wakes the local poller once the work is
 * committed.
 */
public final class DefaultDurableClient implements DurableClient {

    private final MachineRegistry machines;
    private final StartRepository starts;
    private final QueryRepository queries;
    private final SignalRepository signals;
    private final ScheduleRepository schedules;
    private final CancelRepository cancels;
    private final SearchRepository search;
    private final InFlightRepository inFlight;
    private final ClusterRepository cluster;
    private final DiagramRepository diagram;
    private static final Logger log = LoggerFactory.getLogger(DefaultDurableClient.class);
    private static final String NOTHING_STARTED = "nothing was started";
    private static final String NOTHING_SENT = "nothing was sent";
    private static final String NOTHING_SCHEDULED = "nothing was scheduled";
    private static final String NOTHING_CANCELLED = "nothing was cancelled";
    private static final String NOTHING_RETRIED = "nothing was retried";
    private static final String NOTHING_RERUN = "nothing was rerun";
    /** The last error of an instance cancelled without a reason. */
    static final String NO_REASON = "cancelled";

    private final StoredValues values;
    private final SignalDeclarations declarations;
    private final EngineEvents events;
    private final QueueOwners owners;
    private final StartClaims startClaims;
    private final ClientObservations observations;

    /**
     * @param owners      the owners of this node's queues: their pollers hear of new work, and of cancels of
     *                    instances whose claims they may hold
     * @param startClaims the claims a local start makes on the rows it inserts (docs/DESIGN.md, "Local starts")
     * @param observations where the calls that cause work are observed (docs/DESIGN.md, "Tracing")
     * @param planning     how the client's reads of the whole cluster and of a machine's diagram run
     */
    public DefaultDurableClient(MachineRegistry machines, StartRepository starts, QueryRepository queries,
            SignalRepository signals, ScheduleRepository schedules, CancelRepository cancels, SearchRepository search,
            InFlightRepository inFlight, StoredValues values, EngineEvents events, QueueOwners owners,
            StartClaims startClaims, ObservationRegistry observations, StatementPlanning planning) {
        this.observations = new ClientObservations(observations);
        this.diagram = new DiagramRepository(planning);
        this.cluster = new ClusterRepository(planning);
        this.machines = machines;
        this.starts = starts;
        this.queries = queries;
        this.inFlight = inFlight;
        this.signals = signals;
        this.schedules = schedules;
        this.cancels = cancels;
        this.search = search;
        this.values = values;
        this.declarations = new SignalDeclarations(machines, values.codec());
        this.events = events;
        this.owners = owners;
        this.startClaims = startClaims;
    }

    @Override
    public StartResult start(Class<?> machine, @Nullable Object state, StartOptions options) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(options, "options must not be null");
        return start(machines.resolve(machine, options.version()), List.of(StartRequest.of(state, options))).get(0);
    }

    @Override
    public StartResult start(String machine, @Nullable Object state, StartOptions options) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(options, "options must not be null");
        return start(machines.resolve(machine, options.version()), List.of(StartRequest.of(state, options))).get(0);
    }

    @Override
    public List<StartResult> startAll(Class<?> machine, List<StartRequest> requests) {
        Objects.requireNonNull(machine, "machine must not be null");
        return startAll(machines.resolve(machine, null).name(), requests);
    }

    @Override
    public List<StartResult> startAll(String machine, List<StartRequest> requests) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(requests, "requests must not be null");
        if (requests.isEmpty()) {
            return List.of();
        }
        // One statement inserts rows of one machine version; requests naming other versions get their own.
        Map<MachineDefinition, List<Integer>> byVersion = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            MachineDefinition definition = machines.resolve(machine, requests.get(i).options().version());
            byVersion.computeIfAbsent(definition, d -> new ArrayList<>()).add(i);
        }
        StartResult[] results = new StartResult[requests.size()];
        byVersion.forEach((definition, indexes) -> {
            List<StartResult> partial = start(definition, indexes.stream().map(requests::get).toList());
            for (int k = 0; k < indexes.size(); k++) {
                results[indexes.get(k)] = partial.get(k);
            }
        });
        return List.of(results);
    }

    private List<StartResult> start(MachineDefinition machine, List<StartRequest> requests) {
        return observations.observe(DurableObservations.START, trace -> start(machine, requests, trace),
                results -> results.size() == 1 ? results.get(0).created() ? "created" : "existing" : "batch",
                DurableObservations.MACHINE, machine.name(),
                DurableObservations.VERSION, Integer.toString(machine.version()));
    }

    private List<StartResult> start(MachineDefinition machine, List<StartRequest> requests, @Nullable String trace) {
        List<NewInstance> rows = requests.stream()
                .map(request -> NewInstance.of(machine, request.state(), request.options(), values,
                        () -> "The state for machine " + machine.describe(), NOTHING_STARTED))
                .toList();
        boolean[] reserved = startClaims.reserve(rows);
        StartRepository.Inserted inserted;
        try {
            inserted = starts.insert(rows, reserved, trace);
        } catch (RuntimeException | Error e) {
            startClaims.unreserveAll(rows, reserved);
            throw e;
        }
        startClaims.unreserve(rows, reserved, inserted.claimed());
        List<@Nullable ClaimedStep> claimed = inserted.claimed();
        boolean leftRunnable = claimed.stream().anyMatch(Objects::isNull);
        afterCompletion(() -> {
            startClaims.committed(claimed);
            if (leftRunnable) {
                owners.wake(machine.queue());
            }
        }, () -> startClaims.unreserveAll(rows, claimedFlags(claimed)));
        return inserted.results();
    }

    @Override
    public SignalResult signal(long instanceId, String name, @Nullable Object payload, @Nullable String dedupKey) {
        String payloadJson = checkSignal(name, payload, dedupKey, "instance " + instanceId);
        return observations.observe(DurableObservations.SIGNAL, trace -> sent(signals.deliver(instanceId, name,
                payloadJson, dedupKey, declarations.check(name, payloadJson), trace)), DefaultDurableClient::label,
                DurableObservations.SIGNAL_NAME, name);
    }

    @Override
    public SignalResult signalByUniqueKey(String uniqueKey, String name, @Nullable Object payload,
            @Nullable String dedupKey) {
        checkLookupKey(uniqueKey, NOTHING_SENT);
        String payloadJson = checkSignal(name, payload, dedupKey, "the holder of unique key '" + uniqueKey + "'");
        SignalDeclarations.Check check = declarations.check(name, payloadJson); // before the holder is locked
        return observations.observe(DurableObservations.SIGNAL, trace -> sent(search.withLockedHolder(uniqueKey,
                holder -> holder == null
                        ? new SignalRepository.DeliveryReport(
                                new SignalResult(0, SignalResult.Delivery.REFUSED_NO_KEY_HOLDER, false), null)
                        : signals.deliver(holder, name, payloadJson, dedupKey, check, trace))),
                DefaultDurableClient::label, DurableObservations.SIGNAL_NAME, name);
    }

    /** Checks a signal's name, dedup key and payload before any SQL; the payload as JSON, or null for none. */
    private @Nullable String checkSignal(String name, @Nullable Object payload, @Nullable String dedupKey,
            String to) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("A signal needs a non-blank name");
        }
        StoredValues.checkText(name, () -> "The name of signal '" + name + "' to " + to, NOTHING_SENT);
        StoredValues.checkKey(dedupKey, () -> "The dedup key of signal '" + name + "' to " + to, NOTHING_SENT);
        return payload == null ? null
                : values.value(payload, () -> "The payload of signal '" + name + "' to " + to, NOTHING_SENT);
    }

    /** Tells the listeners, and wakes the queue of an instance the signal woke, once the delivery is committed. */
    private SignalResult sent(SignalRepository.DeliveryReport delivery) {
        String queue = delivery.queue();
        afterCommit(() -> {
            events.signalSent(delivery.result());
            if (delivery.result().wokeInstance() && queue != null) {
                owners.wake(queue);
            }
        });
        return delivery.result();
    }

    @Override
    public CancelResult cancel(long instanceId, @Nullable String reason) {
        String why = reason(reason, "instance " + instanceId);
        return observations.observe(DurableObservations.CANCEL,
                trace -> cancelled(cancels.cancel(List.of(instanceId), why)).get(0),
                result -> label(result.outcome()));
    }

    @Override
    public CancelResult cancelByUniqueKey(String uniqueKey, @Nullable String reason) {
        checkLookupKey(uniqueKey, NOTHING_CANCELLED);
        String why = reason(reason, "the holder of unique key '" + uniqueKey + "'");
        return observations.observe(DurableObservations.CANCEL, trace -> cancelled(search.withLockedHolder(uniqueKey,
                holder -> holder == null
                        ? new CancelRepository.Cancellation(List.of(new CancelResult(0,
                                CancelResult.Cancellation.REFUSED_NO_KEY_HOLDER, null)), Set.of(), Set.of())
                        : cancels.cancel(List.of(holder), why))).get(0), result -> label(result.outcome()));
    }

    @Override
    public BulkResult bulkCancel(InstanceQuery query, @Nullable String reason) {
        InstanceQuery page = bulkPage(query, InstanceStatus.UNFINISHED, "cancel");
        String why = reason(reason, "the instances of " + query);
        return search.withLockedPage(page, ids -> {
            List<CancelResult> results = ids.isEmpty() ? List.of() : cancelled(cancels.cancel(ids, why));
            int changed = (int) results.stream()
                    .filter(result -> result.outcome() == CancelResult.Cancellation.CANCELLED).count();
            return bulkResult(page, ids, changed);
        });
    }

    @Override
    public BulkResult bulkRetry(InstanceQuery query) {
        InstanceQuery page = bulkPage(query, EnumSet.of(InstanceStatus.FAILED, InstanceStatus.SUSPENDED), "retry");
        try {
            return search.withLockedPage(page, ids -> {
                Map<Long, String> retried = ids.isEmpty() ? Map.of() : queries.retryFailed(ids);
                Set<String> queues = new TreeSet<>(retried.values());
                afterCommit(() -> queues.forEach(owners::wake));
                return bulkResult(page, ids, retried.size());
            });
        } catch (DuplicateKeyException e) {
            throw new IllegalStateException("A start took the unique key of an instance of this bulk retry while it"
                    + " ran; " + NOTHING_RETRIED + ", and the call can be made again", e);
        }
    }

    /** The reason a cancel stores as the last error: the caller's, else {@link #NO_REASON}; checked before SQL. */
    private static String reason(@Nullable String reason, String of) {
        String why = reason == null || reason.isBlank() ? NO_REASON : reason;
        StoredValues.checkText(why, () -> "The reason for cancelling " + of, NOTHING_CANCELLED);
        return why;
    }

    /**
     * Tells the listeners of each cancel, interrupts the steps this node runs of instances cancelled while executing
     * (cascaded children included), and wakes the queues of parents woken because their children ended, once the
     * cancels are committed; the answers.
     */
    private List<CancelResult> cancelled(CancelRepository.Cancellation cancellation) {
        afterCommit(() -> {
            List<Long> now = cancellation.results().stream()
                    .filter(result -> result.outcome() == CancelResult.Cancellation.CANCELLED)
                    .map(CancelResult::instanceId).toList();
            if (!now.isEmpty()) {
                // One line per cancel: the outcomes of the steps it interrupts are discarded at DEBUG, as expected.
                log.info("Cancelled instance(s) {}; {} instance(s) of it, children included, were running a step,"
                        + " whose outcome is discarded", now, cancellation.executing().size());
            }
            cancellation.results().forEach(events::cancelSent);
            cancellation.executing().forEach(owners::cancelled);
            cancellation.woken().forEach(owners::wake);
        });
        return cancellation.results();
    }

    /**
     * The page a bulk operation reads: {@code query} limited to the statuses the operation acts on, oldest first.
     *
     * @throws IllegalArgumentException if the page is larger than a bulk operation may act on, or the query
     *                                  selects none of those statuses
     */
    private static InstanceQuery bulkPage(InstanceQuery query, Set<InstanceStatus> actsOn, String operation) {
        Objects.requireNonNull(query, "query must not be null");
        if (query.limit() > InstanceQuery.MAX_BULK_LIMIT) {
            throw new IllegalArgumentException("A bulk " + operation + " acts on at most "
                    + InstanceQuery.MAX_BULK_LIMIT + " instances per call, and the query's limit is " + query.limit()
                    + "; page through with afterId; nothing was done");
        }
        Set<InstanceStatus> statuses = EnumSet.copyOf(actsOn);
        if (!query.statuses().isEmpty()) {
            statuses.retainAll(query.statuses());
        }
        if (statuses.isEmpty()) {
            throw new IllegalArgumentException("A bulk " + operation + " acts on " + actsOn + " instances only, and"
                    + " the query selects " + query.statuses() + "; nothing was done");
        }
        return query.statuses(statuses).order(InstanceQuery.Order.OLDEST_FIRST);
    }

    private static BulkResult bulkResult(InstanceQuery page, List<Long> ids, int changed) {
        long lastId = ids.isEmpty() ? page.afterId() : ids.get(ids.size() - 1);
        return new BulkResult(ids.size(), changed, lastId, ids.size() == page.limit());
    }

    /**
     * A unique key that addresses an instance: PostgreSQL text cannot hold a NUL character, so no instance has
     * one, and binding one would fail the statement.
     */
    private static void checkLookupKey(String uniqueKey, String nothingDone) {
        Objects.requireNonNull(uniqueKey, "uniqueKey must not be null");
        if (uniqueKey.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException("The unique key holds a NUL character (\\u0000) at index "
                    + uniqueKey.indexOf('\u0000') + ", which no instance's key can hold; " + nothingDone);
        }
    }

    @Override
    public List<DurableInstance> children(long parentId) {
        return queries.children(parentId, values.codec());
    }

    @Override
    public List<DurableInstance> children(long parentId, long afterId, int limit) {
        return queries.children(parentId, afterId, limit, values.codec());
    }

    @Override
    public List<HistoryEntry> history(long instanceId, long afterId, int limit) {
        return queries.history(instanceId, afterId, limit);
    }

    @Override
    public List<TransitionCount> transitionCounts(String machine, Instant since) {
        return diagram.transitionCounts(machine, since);
    }

    @Override
    public List<Throughput> throughput(Instant since) {
        return cluster.throughput(Objects.requireNonNull(since, "since must not be null"));
    }

    @Override
    public List<ClusterNode> nodes() {
        return cluster.nodes();
    }

    @Override
    public Optional<DurableInstance> find(long instanceId) {
        return queries.find(instanceId, values.codec());
    }

    @Override
    public Optional<DurableInstance> findByUniqueKey(String uniqueKey) {
        checkLookupKey(uniqueKey, "nothing was read");
        return search.holder(uniqueKey, values.codec());
    }

    @Override
    public List<DurableInstance> list(InstanceQuery query) {
        return search.search(Objects.requireNonNull(query, "query must not be null"), values.codec());
    }

    @Override
    public Map<String, Map<InstanceStatus, Long>> count() {
        return queries.count();
    }

    @Override
    public Map<InstanceStatus, Long> count(InstanceQuery query) {
        return search.count(query);
    }

    @Override
    public List<TargetCheck> checkTargets(List<Target> targets) {
        return search.check(targets);
    }

    @Override
    public InstanceCounts countLive() {
        return queries.countLive();
    }

    @Override
    public Map<String, Map<InstanceStatus, Long>> countByStep(String machine) {
        return diagram.countByStep(machine);
    }

    @Override
    public List<QueueSummary> summarize() {
        return queries.summarize();
    }

    @Override
    public List<QueueSummary> summarizeLive() {
        return queries.summarizeLive();
    }

    @Override
    public InFlightReport inFlight() {
        return InFlightReports.of(inFlight.read());
    }

    @Override
    public RetryResult retryFailed(long instanceId) {
        return observations.observe(DurableObservations.RETRY, trace -> retryFailed(instanceId, trace),
                result -> label(result.outcome()));
    }

    private RetryResult retryFailed(long instanceId, @Nullable String trace) {
        QueryRepository.Retried retried;
        try {
            retried = queries.retryFailed(instanceId, trace);
        } catch (DuplicateKeyException e) {
            throw new IllegalStateException("Instance " + instanceId + " cannot be retried: another instance holds"
                    + " its unique key now", e);
        }
        String queue = retried.queue();
        if (queue != null) {
            afterCommit(() -> owners.wake(queue));
        }
        return retried.result();
    }

    @Override
    public RerunResult rerun(long instanceId, String step, @Nullable Object state, String operator) {
        Objects.requireNonNull(step, "step must not be null");
        if (operator == null || operator.isBlank()) {
            throw new IllegalArgumentException("Name the operator who reruns instance " + instanceId + "; "
                    + NOTHING_RERUN);
        }
        StoredValues.checkText(operator, () -> "The operator's name", NOTHING_RERUN);
        DurableInstance instance = queries.find(instanceId, values.codec()).orElse(null);
        if (instance == null) {
            return new RerunResult(instanceId, RerunResult.Rerun.REFUSED_UNKNOWN_INSTANCE, null);
        }
        MachineDefinition machine = machines.find(instance.machine(), instance.version()).orElseThrow(() ->
                new IllegalStateException("Instance " + instanceId + " is of " + instance.machine() + " v"
                        + instance.version() + ", which this node does not run; rerun it from a node that does, "
                        + NOTHING_RERUN));
        if (machine.step(step) == null) {
            throw new IllegalArgumentException(machine.name() + " v" + machine.version() + " has no step '" + step
                    + "' (its steps: " + machine.steps().keySet() + "); " + NOTHING_RERUN);
        }
        String json = null;
        if (state != null) {
            json = values.state(machine, state, () -> "The edited state of instance " + instanceId, NOTHING_RERUN);
            List<String> dropped = values.codec().bind(json, machine.stateType()).droppedPaths();
            if (!dropped.isEmpty()) {
                throw new IllegalArgumentException("The edited state of instance " + instanceId + " would lose "
                        + dropped + " when read as " + machine.stateType().getTypeName() + "; " + NOTHING_RERUN);
            }
        }
        String reason = "rerun from step '" + step + "' by " + operator + (json == null ? "" : ", state edited");
        QueryRepository.Rerun rerun;
        try {
            rerun = queries.rerun(instanceId, step, json, reason);
        } catch (DuplicateKeyException e) {
            throw new IllegalStateException("Instance " + instanceId + " cannot be rerun: another instance holds its"
                    + " unique key now; " + NOTHING_RERUN, e);
        }
        String queue = rerun.queue();
        if (queue != null) {
            log.info("Instance {} rerun from step '{}' by {}{}", instanceId, step, operator,
                    json == null ? "" : ", state edited");
            afterCommit(() -> owners.wake(queue));
        }
        return rerun.result();
    }

    /** An enum constant as an observation's key value: lower case. */
    private static String label(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    private static String label(SignalResult result) {
        return label(result.delivery());
    }

    @Override
    public StoredSchedule schedule(Class<?> machine, Schedule schedule, @Nullable Object state) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(schedule, "schedule must not be null");
        return schedule(machines.resolve(machine, null), schedule, state);
    }

    @Override
    public StoredSchedule schedule(String machine, Schedule schedule, @Nullable Object state) {
        Objects.requireNonNull(machine, "machine must not be null");
        Objects.requireNonNull(schedule, "schedule must not be null");
        return schedule(machines.resolve(machine, null), schedule, state);
    }

    private StoredSchedule schedule(MachineDefinition machine, Schedule schedule, @Nullable Object state) {
        if (!machine.acceptsState(state)) {
            throw new IllegalArgumentException("Schedule '" + schedule.name() + "': machine " + machine.describe()
                    + " stores states of type " + machine.stateType().getTypeName() + ", not "
                    + Objects.requireNonNull(state).getClass().getName() + "; " + NOTHING_SCHEDULED);
        }
        String stateJson = state == null ? null : values.state(machine, state,
                () -> "The state of schedule '" + schedule.name() + "'", NOTHING_SCHEDULED);
        StoredValues.checkText(schedule.name(), () -> "The name of schedule '" + schedule.name() + "'",
                NOTHING_SCHEDULED);
        String zone = schedule.zone().getId();
        Instant first = new ScheduleTicks(schedule.cron(), zone).after(schedules.now());
        schedules.put(new ScheduleRepository.NewSchedule(schedule.name(), machine.name(), schedule.cron(), zone,
                schedule.missPolicy(), stateJson, false, first));
        return schedules.find(schedule.name()).orElseThrow(() -> new IllegalStateException("Schedule '"
                + schedule.name() + "' was deleted while it was being written"));
    }

    @Override
    public Optional<StoredSchedule> findSchedule(String name) {
        return schedules.find(Objects.requireNonNull(name, "name must not be null"));
    }

    @Override
    public List<StoredSchedule> schedules() {
        return schedules.list();
    }

    @Override
    public boolean pauseSchedule(String name) {
        return schedules.pause(Objects.requireNonNull(name, "name must not be null"));
    }

    @Override
    public boolean resumeSchedule(String name) {
        StoredSchedule schedule = findSchedule(name).filter(StoredSchedule::paused).orElse(null);
        if (schedule == null) {
            return false;
        }
        Instant next = new ScheduleTicks(schedule.cron(), schedule.zone()).after(schedules.now());
        return schedules.resume(name, schedule.cron(), schedule.zone(), next);
    }

    @Override
    public boolean deleteSchedule(String name) {
        return schedules.delete(Objects.requireNonNull(name, "name must not be null"));
    }

    private static boolean[] claimedFlags(List<@Nullable ClaimedStep> claimed) {
        boolean[] flags = new boolean[claimed.size()];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = claimed.get(i) != null;
        }
        return flags;
    }
}
