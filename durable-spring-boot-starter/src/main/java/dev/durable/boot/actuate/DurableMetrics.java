package dev.durable.boot.actuate;

import dev.durable.InstanceCounts;
import dev.durable.InstanceStatus;
import dev.durable.Target;
import dev.durable.WaitReason;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.EngineStats;
import dev.durable.runtime.LimitStatus;
import dev.durable.runtime.StepEvent;
import dev.durable.runtime.StrandedInstances;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's meters. Tags are low-cardinality: machine, version, step, outcome, fate, queue, status, reason; never
 * an instance id.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th></tr>
 *   <tr><td>{@code durable.step.duration}</td><td>timer</td><td>machine, step, outcome (what the step decided:
 *       next, retry, await, done, stop; none when it died of an Error or its instance was suspended), fate (what
 *       became of it: committed,
 *       fenced, abandoned, discarded)</td></tr>
 *   <tr><td>{@code durable.picks}</td><td>counter</td><td>queue</td></tr>
 *   <tr><td>{@code durable.outcomes}</td><td>counter</td><td>fate: committed, fenced (lease lost), abandoned,
 *       discarded</td></tr>
 *   <tr><td>{@code durable.reaped}, {@code durable.released}, {@code durable.leases.lost},
 *       {@code durable.zombies.detected}, {@code durable.component.failures},
 *       {@code durable.deadlines.fired}, {@code durable.schedules.started}, {@code durable.schedules.misfires},
 *       {@code durable.retention.deleted}</td>
 *       <td>counters</td><td></td></tr>
 *   <tr><td>{@code durable.signals}</td><td>counter</td><td>delivery: delivered, deduplicated, refused</td></tr>
 *   <tr><td>{@code durable.cancels}</td><td>counter</td><td>result: cancelled, already_cancelled, refused</td></tr>
 *   <tr><td>{@code durable.instances.suspended}</td><td>counter</td><td>machine: instances this node suspended
 *       instead of running a step that would have lost stored data</td></tr>
 *   <tr><td>{@code durable.claims}, {@code durable.zombies}</td><td>gauges</td><td></td></tr>
 *   <tr><td>{@code durable.queue.concurrency}, {@code durable.queue.claims}</td><td>gauges (this node)</td>
 *       <td>queue</td></tr>
 *   <tr><td>{@code durable.queue.cluster.executing}, {@code durable.queue.cluster.tokens}</td><td>gauges (as this
 *       node's last limited pick saw them; a queue with cluster-wide limits only, the tokens with a rate only)</td>
 *       <td>queue</td></tr>
 *   <tr><td>{@code durable.queue.held.back}</td><td>counter (a queue with cluster-wide limits only)</td><td>queue:
 *       this node's picks that the limits held back</td></tr>
 *   <tr><td>{@code durable.queue.depth}</td><td>gauge (database)</td><td>queue, status: runnable, executing,
 *       awaiting_signal, suspended, failed (not done and cancelled: history is no depth, and only a scan counts
 *       it)</td>
 *       </tr>
 *   <tr><td>{@code durable.instances}</td><td>gauge (database)</td><td>queue, machine, version, status, reason: the
 *       same instances as {@code durable.queue.depth}, each under what it waits for ({@link WaitReason}: ready, timer,
 *       executing, signal, deadline, children, suspended, failed); every reason of every machine version this node
 *       registers, zeros included, and of every other one that has such instances</td></tr>
 *   <tr><td>{@code durable.queue.oldest.runnable.age}, {@code durable.queue.expired.leases}</td><td>gauges
 *       (database)</td><td>queue</td></tr>
 *   <tr><td>{@code durable.queue.target.breaches}</td><td>gauge (database, with a target)</td><td>queue: the due
 *       instances past the queue's oldest-runnable-age target at the targets' last check</td></tr>
 *   <tr><td>{@code durable.step.target.breaches}</td><td>gauge (database, with a target)</td><td>machine, step:
 *       the instances past the step's time-at-step target at the targets' last check</td></tr>
 * </table>
 *
 * The database gauges come from one statement, {@code DurableClient.countLive()}, which reads only the indexes of
 * unfinished and failed instances (docs/DESIGN.md, "Counting instances"), run in the background every
 * {@code durable.metrics.queue-depth-refresh-interval} and cached: a scrape never queries the database, and what it
 * shows is at most that interval old. This node's queues are always reported, at zero when they have nothing
 * unfinished.
 */
public final class DurableMetrics implements DurableListener, MeterBinder, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DurableMetrics.class);
    /** The statuses of {@code durable.queue.depth}: all but done and cancelled. */
    private static final Set<InstanceStatus> DEPTH_STATUSES = Collections.unmodifiableSet(
            EnumSet.complementOf(EnumSet.of(InstanceStatus.DONE, InstanceStatus.CANCELLED)));

    private final Supplier<DurableEngine> engine;
    private final Duration refreshInterval;
    private final @Nullable DurableTargets targets;
    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
    private final List<QueueGauges> queueGauges = new CopyOnWriteArrayList<>();
    private final Map<PickMeter, Counter> pickCounters = new ConcurrentHashMap<>();
    private final Map<StepMeter, Timer> stepTimers = new ConcurrentHashMap<>();
    private final Map<MachineMeter, Counter> suspensionCounters = new ConcurrentHashMap<>();
    private @Nullable ScheduledExecutorService refresher;

    /**
     * @param engine          the engine, looked up when the meters are bound (the engine is built with these
     *                        metrics as a listener, so it cannot be passed directly)
     * @param refreshInterval how often the database gauges are refreshed
     */
    public DurableMetrics(Supplier<DurableEngine> engine, Duration refreshInterval) {
        this(engine, refreshInterval, null);
    }

    /**
     * @param targets the node's targets, whose breaches at their last check the gauges
     *                {@code durable.queue.target.breaches} and {@code durable.step.target.breaches} show;
     *                {@code null} for none
     */
    public DurableMetrics(Supplier<DurableEngine> engine, Duration refreshInterval, @Nullable DurableTargets targets) {
        this.engine = engine;
        this.refreshInterval = refreshInterval;
        this.targets = targets;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        DurableEngine engine = this.engine.get();
        EngineStats stats = engine.stats();
        counter(registry, "durable.reaped", "Expired claims returned to runnable by this node's reaper", stats,
                EngineStats::reaped, Tags.empty());
        counter(registry, "durable.released", "Unfinished claims released at shutdown", stats,
                EngineStats::released, Tags.empty());
        counter(registry, "durable.deadlines.fired", "Await deadlines this node fired (parked instances re-run as"
                + " timed out)", stats, EngineStats::deadlinesFired, Tags.empty());
        counter(registry, "durable.schedules.started", "Instances this node started for the ticks of recurring"
                + " schedules", stats, EngineStats::scheduledStarts, Tags.empty());
        counter(registry, "durable.schedules.misfires", "Times this node found a schedule's ticks missed and applied"
                + " its miss policy", stats, EngineStats::scheduleMisfires, Tags.empty());
        counter(registry, "durable.retention.deleted", "Ended instances this node's retention sweep deleted", stats,
                EngineStats::retentionDeleted, Tags.empty());
        counter(registry, "durable.leases.lost", "Running steps whose lease the heartbeat found lost", stats,
                EngineStats::leasesLost, Tags.empty());
        counter(registry, "durable.zombies.detected", "Steps that did not end within the grace period after an"
                + " interrupt", stats, EngineStats::zombiesDetected, Tags.empty());
        counter(registry, "durable.component.failures", "Failures of the node's background components", stats,
                EngineStats::componentFailures, Tags.empty());
        String outcomes = "Step outcomes by what became of them in the database";
        counter(registry, "durable.outcomes", outcomes, stats, EngineStats::outcomesCommitted,
                Tags.of("fate", StepEvent.Fate.COMMITTED.label()));
        counter(registry, "durable.outcomes", outcomes, stats, EngineStats::outcomesFenced,
                Tags.of("fate", StepEvent.Fate.FENCED.label()));
        counter(registry, "durable.outcomes", outcomes, stats, EngineStats::outcomesAbandoned,
                Tags.of("fate", StepEvent.Fate.ABANDONED.label()));
        counter(registry, "durable.outcomes", outcomes, stats, EngineStats::outcomesDiscarded,
                Tags.of("fate", StepEvent.Fate.DISCARDED.label()));
        String signals = "Signals sent through this node, by what became of them";
        counter(registry, "durable.signals", signals, stats, EngineStats::signalsDelivered,
                Tags.of("delivery", "delivered"));
        counter(registry, "durable.signals", signals, stats, EngineStats::signalsDeduplicated,
                Tags.of("delivery", "deduplicated"));
        counter(registry, "durable.signals", signals, stats, EngineStats::signalsRefused,
                Tags.of("delivery", "refused"));
        String cancels = "Cancels made through this node, by what became of them";
        counter(registry, "durable.cancels", cancels, stats, EngineStats::cancelsApplied,
                Tags.of("result", "cancelled"));
        counter(registry, "durable.cancels", cancels, stats, EngineStats::cancelsRepeated,
                Tags.of("result", "already_cancelled"));
        counter(registry, "durable.cancels", cancels, stats, EngineStats::cancelsRefused,
                Tags.of("result", "refused"));
        Gauge.builder("durable.claims", engine, DurableEngine::claims)
                .description("Steps running on this node").register(registry);
        Gauge.builder("durable.zombies", engine, DurableEngine::zombies)
                .description("Interrupted steps that have not ended").register(registry);
        engine.queues().keySet().forEach(queue -> {
            Gauge.builder("durable.queue.concurrency", engine, e -> localQueue(e, queue, true))
                    .description("Steps of the queue this node runs at most at once").tag("queue", queue)
                    .register(registry);
            Gauge.builder("durable.queue.claims", engine, e -> localQueue(e, queue, false))
                    .description("Steps of the queue running on this node").tag("queue", queue).register(registry);
        });
        // The cluster-wide limits of the queues that have any (docs/DESIGN.md, "Cluster-wide limits"): as this
        // node's last limited pick saw them, so a scrape never queries the database.
        engine.queues().forEach((queue, local) -> {
            LimitStatus limit = local.limits();
            if (limit == null) {
                return;
            }
            Gauge.builder("durable.queue.cluster.executing", engine, e -> limitSeen(e, queue, true))
                    .description("Steps of the queue executing on all nodes, as this node's last pick counted them")
                    .tag("queue", queue).register(registry);
            if (limit.limits().rate() != null) {
                Gauge.builder("durable.queue.cluster.tokens", engine, e -> limitSeen(e, queue, false))
                        .description("Step starts the queue's rate allowed after this node's last pick")
                        .tag("queue", queue).register(registry);
            }
            FunctionCounter.builder("durable.queue.held.back", engine, e -> {
                DurableEngine.QueueStatus status = e.queues().get(queue);
                return status == null || status.limits() == null ? 0 : status.limits().heldBack();
            }).description("Picks of this node that the queue's cluster-wide limits held back").tag("queue", queue)
                    .register(registry);
        });
        if (targets != null) {
            bindTargets(registry, targets);
        }
        queueGauges.add(new QueueGauges(registry));
        registries.add(registry);
        startRefreshing();
    }

    /** One gauge per target, read from the last check: NaN before the first (docs/DESIGN.md, "Targets"). */
    private static void bindTargets(MeterRegistry registry, DurableTargets targets) {
        for (Target target : targets.targets()) {
            ToDoubleFunction<DurableTargets> breaching = t -> t.last()
                    .flatMap(checked -> checked.checks().stream().filter(check -> check.target().equals(target))
                            .findFirst())
                    .map(check -> (double) check.breaching()).orElse(Double.NaN);
            if (target.kind() == Target.Kind.OLDEST_RUNNABLE_AGE) {
                Gauge.builder("durable.queue.target.breaches", targets, breaching)
                        .description("Due instances of the queue that have waited longer than its oldest-runnable-age"
                                + " target, all nodes, at the last check").baseUnit("instances")
                        .tag("queue", target.queue()).register(registry);
            } else {
                Gauge.builder("durable.step.target.breaches", targets, breaching)
                        .description("Instances of the machine that have waited at the step, due or parked, longer"
                                + " than its time-at-step target, all nodes, at the last check").baseUnit("instances")
                        .tags("machine", target.machine(), "step", target.step()).register(registry);
            }
        }
    }

    @Override
    public void picked(String queue, int count) {
        for (MeterRegistry registry : registries) {
            pickCounters.computeIfAbsent(new PickMeter(registry, queue), key -> Counter.builder("durable.picks")
                    .description("Instances claimed by this node's polls").tag("queue", queue).register(registry))
                    .increment(count);
        }
    }

    @Override
    public void instanceSuspended(long instanceId, String machine, int version, String step, String reason) {
        for (MeterRegistry registry : registries) {
            suspensionCounters.computeIfAbsent(new MachineMeter(registry, machine), key -> Counter
                    .builder("durable.instances.suspended")
                    .description("Instances this node suspended instead of running a step that would have lost"
                            + " stored data").tag("machine", machine).register(registry))
                    .increment();
        }
    }

    /** Called for every step, on the committer's thread: the timer is looked up, built only the first time. */
    @Override
    public void stepFinished(StepEvent event) {
        String outcome = event.outcome() == null ? "none" : event.outcome().label();
        String fate = event.fate().label();
        for (MeterRegistry registry : registries) {
            stepTimers.computeIfAbsent(new StepMeter(registry, event.machine(), event.step(), outcome, fate),
                    key -> Timer.builder("durable.step.duration")
                            .description("Time from the start of a step to the end of its outcome's commit")
                            .tags("machine", key.machine(), "step", key.step(), "outcome", key.outcome(),
                                    "fate", key.fate())
                            .register(registry))
                    .record(event.duration());
        }
    }

    private record PickMeter(MeterRegistry registry, String queue) {
    }

    private record MachineMeter(MeterRegistry registry, String machine) {
    }

    private record StepMeter(MeterRegistry registry, String machine, String step, String outcome, String fate) {
    }

    private record GroupKey(String queue, String machine, int version) {
    }

    private static GroupKey key(InstanceCounts.Group group) {
        return new GroupKey(group.queue(), group.machine(), group.version());
    }

    /** Counts the live instances now and updates the database gauges. */
    public void refresh() {
        InstanceCounts counts;
        Set<String> localQueues;
        List<MachineDefinition> localMachines;
        List<StrandedInstances> stranded;
        try {
            DurableEngine node = engine.get();
            localQueues = node.queues().keySet();
            localMachines = node.machines().all();
            stranded = node.stranded();
            counts = node.client().countLive();
        } catch (RuntimeException e) {
            log.debug("Could not refresh durable's queue gauges; keeping the last values: {}", e.toString());
            return;
        }
        queueGauges.forEach(gauges -> gauges.update(counts, localQueues, localMachines, stranded));
    }

    @Override
    public synchronized void close() {
        if (refresher != null) {
            refresher.shutdownNow();
            refresher = null;
        }
    }

    private synchronized void startRefreshing() {
        if (refresher != null) {
            return;
        }
        refresher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "durable-metrics");
            thread.setDaemon(true);
            return thread;
        });
        refresher.scheduleWithFixedDelay(this::refresh, 0, refreshInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void counter(MeterRegistry registry, String name, String description, EngineStats stats,
            ToDoubleFunction<EngineStats> count, Tags tags) {
        FunctionCounter.builder(name, stats, count).description(description).tags(tags).register(registry);
    }

    private static double limitSeen(DurableEngine engine, String queue, boolean executing) {
        DurableEngine.QueueStatus local = engine.queues().get(queue);
        LimitStatus status = local == null ? null : local.limits();
        Number value = status == null ? null : executing ? status.executing() : status.tokens();
        return value == null ? Double.NaN : value.doubleValue();
    }

    private static double localQueue(DurableEngine engine, String queue, boolean concurrency) {
        DurableEngine.QueueStatus status = engine.queues().get(queue);
        if (status == null) {
            return Double.NaN;
        }
        return concurrency ? status.concurrency() : status.claims();
    }

    /** The database gauges of one registry. */
    private static final class QueueGauges {

        private final MultiGauge depth;
        private final MultiGauge instances;
        private final MultiGauge oldestRunnableAge;
        private final MultiGauge expiredLeases;
        private final MultiGauge stranded;

        QueueGauges(MeterRegistry registry) {
            depth = MultiGauge.builder("durable.queue.depth")
                    .description("Instances per queue and status, all nodes").baseUnit("instances")
                    .register(registry);
            instances = MultiGauge.builder("durable.instances")
                    .description("Unfinished and failed instances per queue, machine, version and what they wait for"
                            + " (reason), all nodes").baseUnit("instances")
                    .register(registry);
            oldestRunnableAge = MultiGauge.builder("durable.queue.oldest.runnable.age")
                    .description("How long the oldest eligible runnable instance of the queue has waited")
                    .baseUnit("seconds").register(registry);
            expiredLeases = MultiGauge.builder("durable.queue.expired.leases")
                    .description("Executing instances whose lease expired and that are not reaped yet")
                    .register(registry);
            stranded = MultiGauge.builder("durable.instances.stranded")
                    .description("Runnable instances of a machine version no live node runs, as this node's last"
                            + " reaper run found them").baseUnit("instances")
                    .register(registry);
        }

        /**
         * {@code counts} of every queue; queues and machine versions of this node missing from them have nothing
         * unfinished.
         */
        void update(InstanceCounts counts, Set<String> localQueues, List<MachineDefinition> localMachines,
                List<StrandedInstances> strandedNow) {
            Set<String> queues = new TreeSet<>(localQueues);
            queues.addAll(counts.queues());
            List<MultiGauge.Row<?>> depths = new ArrayList<>();
            List<MultiGauge.Row<?>> ages = new ArrayList<>();
            List<MultiGauge.Row<?>> expired = new ArrayList<>();
            for (String queue : queues) {
                InstanceCounts ofQueue = counts.queue(queue);
                for (InstanceStatus status : DEPTH_STATUSES) {
                    depths.add(MultiGauge.Row.of(Tags.of("queue", queue, "status", status.label()),
                            ofQueue.count(status)));
                }
                Duration age = ofQueue.oldestReadyAge();
                ages.add(MultiGauge.Row.of(Tags.of("queue", queue), age == null ? 0.0 : age.toNanos() / 1e9));
                expired.add(MultiGauge.Row.of(Tags.of("queue", queue), ofQueue.expiredLeases()));
            }
            Map<GroupKey, InstanceCounts.Group> groups = new LinkedHashMap<>();
            localMachines.forEach(machine -> {
                InstanceCounts.Group none = new InstanceCounts.Group(machine.queue(), machine.name(), machine.version(),
                        Map.of(), null, 0);
                groups.put(key(none), none);
            });
            counts.groups().forEach(group -> groups.put(key(group), group));
            List<MultiGauge.Row<?>> byReason = new ArrayList<>();
            for (InstanceCounts.Group group : groups.values()) {
                for (WaitReason reason : WaitReason.values()) {
                    byReason.add(MultiGauge.Row.of(Tags.of("queue", group.queue(), "machine", group.machine(),
                            "version", String.valueOf(group.version()), "status", reason.status().label(),
                            "reason", reason.label()), group.count(reason)));
                }
            }
            depth.register(depths, true);
            instances.register(byReason, true);
            oldestRunnableAge.register(ages, true);
            expiredLeases.register(expired, true);
            stranded.register(strandedNow.stream()
                    .map(s -> MultiGauge.Row.of(Tags.of("machine", s.machine(), "version", String.valueOf(s.version())),
                            s.waiting()))
                    .<MultiGauge.Row<?>>map(row -> row)
                    .toList(), true);
        }
    }
}
