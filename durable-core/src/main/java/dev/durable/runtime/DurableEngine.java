package dev.durable.runtime;

import dev.durable.DurableClient;
import dev.durable.jdbc.DurableSchema;
import dev.durable.jdbc.SchemaTooNewException;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.control.CancelRepository;
import dev.durable.runtime.control.DefaultDurableClient;
import dev.durable.runtime.control.QueryRepository;
import dev.durable.runtime.control.DiagramRepository;
import dev.durable.runtime.control.HistoryRollup;
import dev.durable.runtime.control.Retention;
import dev.durable.runtime.control.RetentionRepository;
import dev.durable.runtime.control.SearchRepository;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.control.StartRepository;
import dev.durable.runtime.deploy.DeployVerdicts;
import dev.durable.runtime.deploy.DeployClassifier;
import dev.durable.runtime.deploy.DeployGuard;
import dev.durable.runtime.deploy.InFlightRepository;
import dev.durable.runtime.deploy.NodeMachines;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.WakeUpChannel;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.node.Heartbeat;
import dev.durable.runtime.node.NodeRegistry;
import dev.durable.runtime.node.NodeRepository;
import dev.durable.runtime.node.ProbeRepository;
import dev.durable.runtime.node.Reaper;
import dev.durable.runtime.node.WakeUpListener;
import dev.durable.runtime.node.WorkProbe;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.FamilyRepository;
import dev.durable.runtime.queue.Committer;
import dev.durable.runtime.queue.QueueOwner;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.queue.StartClaims;
import dev.durable.runtime.queue.StepExecutor;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.StepRunner;
import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.runtime.support.EngineCounters;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.support.EngineThreads;
import dev.durable.runtime.support.NodeLifecycle;
import dev.durable.runtime.support.StoredValues;
import dev.durable.runtime.time.AwaitDeadlines;
import dev.durable.runtime.time.DeadlineRepository;
import dev.durable.runtime.time.RecurringSchedules;
import dev.durable.runtime.time.ScheduleRepository;
import io.micrometer.observation.ObservationRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable engine of one node: the client API plus the runtime that runs steps — an owner per queue with its
 * poller, the step executor, the committer, the heartbeat, the reaper, the sweeps that fire await deadlines and
 * recurring schedules, retention's and the history rollup's (docs/DESIGN.md, "Dashboard"). Usable without Spring Boot:
 *
 * <pre>{@code
 * DurableEngine engine = DurableEngine.builder(dataSource, MachineRegistry.of(checkout))
 *         .settings(EngineSettings.builder().queue("checkout", QueueSettings.concurrency(8)).build())
 *         .build();
 * engine.start();
 * engine.client().start("checkout", new Checkout.State(42));
 * // ... the node runs steps of this and other nodes' instances until it stops
 * engine.stop();   // graceful: running steps finish within the grace period, the rest is released
 * }</pre>
 *
 * <p>The engine expects durable's tables to exist ({@link DurableSchema#migrate(DataSource)} creates them).
 * If the database cannot be reached, at start or later, the node reports {@link NodeState#DEGRADED} and keeps
 * retrying; it recovers by itself.
 */
public final class DurableEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DurableEngine.class);
    private static final Duration COMPONENT_STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration RELEASED_STEP_WAIT = Duration.ofSeconds(2);

    private final EngineSettings settings;
    private final MachineRegistry machines;
    private final String nodeId;
    private final EngineEvents events;
    private final EngineStats stats;
    private final NodeLifecycle lifecycle;
    private final ClaimRepository claims;
    private final DurableClient client;
    private final QueueOwners owners;
    private final ScheduledExecutorService timer;
    private final Executor stepThreads;
    private final boolean ownsStepThreads;
    private final Committer committer;
    private final StepExecutor executor;
    private final Heartbeat heartbeat;
    private final Reaper reaper;
    private final NodeRegistry registry;
    private final InFlightRepository inFlightRepository;
    private final DeployClassifier classifier;
    private final DeployGuard deployGuard;
    private final DataSource dataSource;
    private final BackgroundLoop heartbeatLoop;
    private final BackgroundLoop reaperLoop;
    private final BackgroundLoop deadlineLoop;
    private final BackgroundLoop scheduleLoop;
    private final BackgroundLoop probeLoop;
    /** The history rollup, and the retention sweep when a status has a retention (docs/DESIGN.md, "Retention"). */
    private final List<BackgroundLoop> upkeep;
    private final AwaitDeadlines deadlines;
    private final RecurringSchedules recurring;
    private final boolean movableClock;
    /** On the test clock, the pollers pick and local starts claim only while the driver lets them (EngineDriver). */
    private final AtomicBoolean picksHeld = new AtomicBoolean(true);
    private final WakeUpListener wakeUps;
    private boolean closed;

    private DurableEngine(Builder builder) {
        this.settings = builder.settings;
        this.machines = builder.machines;
        NodeMachines.checkQueuesConfigured(settings, machines);
        NodeMachines.checkStatesReadable(machines, builder.codec);
        NodeMachines.checkPayloadsReadable(machines, builder.codec);
        this.nodeId = settings.nodeName() + ":" + randomSuffix();
        EngineCounters counters = new EngineCounters();
        this.stats = new EngineStats(counters);
        this.events = new EngineEvents(builder.listener, counters);
        this.lifecycle = new NodeLifecycle(nodeId, events);
        this.movableClock = builder.movableClock;
        boolean listen = settings.wakeUps() == WakeUps.LISTEN;
        StatementPlanning planning = new StatementPlanning(builder.dataSource, DurableSchema.named(settings.schema()),
                movableClock, listen);
        History history = new History(settings.history(), nodeId);
        this.claims = new ClaimRepository(planning, history);
        StoredValues values = new StoredValues(builder.codec);
        ScheduleRepository schedules = new ScheduleRepository(planning);
        QueryRepository queries = new QueryRepository(planning, history);
        this.inFlightRepository = new InFlightRepository(builder.dataSource, planning);
        this.classifier = new DeployClassifier(machines, builder.codec);
        // The owners of the queues, one per queue, each of which alone decides when its claimed rows run and when it
        // picks (docs/DESIGN.md, "The life of a step"); the node's views of its claims ask them.
        this.owners = new QueueOwners(events);
        this.client = new DefaultDurableClient(machines, new StartRepository(planning, nodeId, settings.leaseTtl()),
                queries, new SignalRepository(planning), schedules, new CancelRepository(builder.dataSource, planning,
                history), new SearchRepository(builder.dataSource, planning), inFlightRepository, values, events,
                owners, new StartClaims(owners), builder.observations, planning);
        this.timer = EngineThreads.stepTimeouts();
        this.ownsStepThreads = builder.stepThreads == null;
        this.stepThreads = builder.stepThreads != null ? builder.stepThreads
                : EngineThreads.stepThreads(settings.virtualThreads());
        // The committer learns from the owners how many steps run user code (their transitions will arrive soon).
        this.committer = new Committer(new TransitionRepository(builder.dataSource, planning, history), owners,
                lifecycle, events, new Committer.Settings(settings.outcomeRetryTimeout(), settings.leaseTtl(),
                        settings.maxRetryBackoff(), settings.batchWindow(), settings.queues().values().stream()
                                .mapToInt(QueueSettings::batchSize).max().orElse(Integer.MAX_VALUE)));
        StepRunner runner = new StepRunner(machines, builder.codec, values, settings.lossyState(), settings.stepTimeout(),
                settings.retryPolicy(), settings.history() ? settings.historyPatchMaxBytes() : 0,
                parentId -> queries.children(parentId, builder.codec));
        this.executor = new StepExecutor(runner, committer, claims, events, stepThreads, timer,
                settings.zombieGracePeriod(), settings.inlineNextSteps(), builder.observations);
        this.dataSource = builder.dataSource;
        this.deployGuard = new DeployGuard(settings.deployCheck(), this::checkDeploy, owners, nodeId,
                settings.reaperInterval());
        QueueOwner.Gate gate = movableClock ? () -> !picksHeld.get() && deployGuard.allowsPicking() : deployGuard;
        settings.queues().forEach((name, queue) -> owners.add(new QueueOwner(name, new QueueOwner.Settings(
                queue.concurrency(), queue.batchSize(), settings.batchWindow(), settings.pollInterval(),
                settings.leaseTtl(), settings.maxRetryBackoff(), queue.limits()), NodeMachines.versionsOnQueue(machines,
                name), nodeId, claims, executor, events, lifecycle, gate)));
        this.heartbeat = new Heartbeat(claims, new FamilyRepository(planning), owners, settings.leaseTtl(),
                settings.heartbeatInterval());
        this.reaper = new Reaper(claims, planning, events, owners, new Reaper.Settings(settings.leaseTtl(),
                settings.heartbeatInterval(), settings.reaperInterval(), settings.reaperBatchSize()), nodeId,
                settings.nodeName() + ":");
        this.registry = new NodeRegistry(new NodeRepository(planning), nodeId, machines, settings.leaseTtl());
        this.heartbeatLoop = new BackgroundLoop(Heartbeat.NAME, () -> {
            Duration next = heartbeat.beat();
            registry.renew();
            return next;
        }, lifecycle, events, settings.maxRetryBackoff());
        this.reaperLoop = new BackgroundLoop(Reaper.NAME, () -> {
            Duration next = reaper.reap();
            registry.watchStranded();
            deployGuard.onReaperRun();
            return next;
        }, lifecycle, events, settings.maxRetryBackoff());
        this.deadlines = new AwaitDeadlines(new DeadlineRepository(planning), events, owners,
                settings.reaperBatchSize());
        this.deadlineLoop = new BackgroundLoop(AwaitDeadlines.NAME, deadlines::sweep, lifecycle, events,
                settings.maxRetryBackoff());
        this.recurring = new RecurringSchedules(schedules, machines, events, owners,
                settings.pollInterval(), settings.reaperBatchSize(), settings.scheduleMisfireThreshold());
        this.scheduleLoop = new BackgroundLoop(RecurringSchedules.NAME, recurring::sweep, lifecycle, events,
                settings.maxRetryBackoff());
        Map<String, QueueOwner> working = new LinkedHashMap<>();
        owners.all().forEach((name, owner) -> {
            if (owner.isActive()) {
                working.put(name, owner);
            }
        });
        WorkProbe probe = new WorkProbe(new ProbeRepository(planning), working,
                machines.all().stream().map(MachineDefinition::name).distinct().toList(), deadlineLoop::wake,
                scheduleLoop::wake, () -> stats.picked(), settings.pollInterval(), settings.idlePollInterval());
        this.probeLoop = new BackgroundLoop(WorkProbe.NAME, probe::probe, lifecycle, events,
                settings.maxRetryBackoff());
        Retention retention = new Retention(new RetentionRepository(planning), events,
                settings.retentionDone(), settings.retentionFailed(), settings.retentionCancelled(),
                settings.retentionBatchSize(), settings.retentionInterval());
        BackgroundLoop rollup = new BackgroundLoop(HistoryRollup.NAME, new HistoryRollup(new DiagramRepository(
                planning), retention.longestKept())::roll, lifecycle, events, settings.maxRetryBackoff());
        this.upkeep = retention.enabled() ? List.of(rollup, new BackgroundLoop(Retention.NAME, retention::sweep,
                lifecycle, events, settings.maxRetryBackoff())) : List.of(rollup);
        this.wakeUps = new WakeUpListener(listen, builder.dataSource, WakeUpChannel.of(settings.schema()), owners,
                settings.maxRetryBackoff()); // docs/DESIGN.md, "Wake-ups"; does nothing in poll-only mode
    }

    /** A builder for an engine on {@code dataSource} running {@code machines}. */
    public static Builder builder(DataSource dataSource, MachineRegistry machines) {
        return new Builder(dataSource, machines);
    }

    /** Starts and signals instances; works whether or not the engine runs. */
    public DurableClient client() {
        return client;
    }

    /**
     * Starts polling, heartbeats and reaping, and registers the node in {@code durable_node} (a failure to register
     * is logged and retried by the heartbeat), so it never fails for the database. A
     * stopped engine can be started again (a Spring context that is stopped and restarted, or paused between test
     * classes, does so); a closed one cannot.
     *
     * @throws IllegalStateException if the engine was closed
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("durable node " + nodeId + " was closed; build a new engine");
        }
        if (movableClock) { // a test kit's engine (EngineDriver): never the background loops
            startDriven();
            return;
        }
        NodeState state = lifecycle.state();
        if (state != NodeState.STARTING && state != NodeState.STOPPED) {
            return;
        }
        log.info("Starting durable node {} on schema {}: queues {}, machines {}", nodeId, settings.schema(),
                describeQueues(), machines.all().stream().map(MachineDefinition::describe).toList());
        if (state == NodeState.STARTING) { // once, not at every restart of a stopped engine
            NodeMachines.logMachinesAcceptingAny(machines);
        }
        requireKnownSchemaVersion();
        committer.start();
        registry.renew();
        // Before any loop starts and before the pollers pick: the operator hears what this code cannot run before it
        // runs anything. Like the registration above, a database that cannot answer only makes it log; the reaper's
        // runs try again.
        deployGuard.atStart();
        reaper.nodeStarted();
        heartbeatLoop.start();
        reaperLoop.start();
        deadlineLoop.start();
        scheduleLoop.start();
        upkeep.forEach(BackgroundLoop::start);
        owners.start();
        wakeUps.start();
        probeLoop.start();
        lifecycle.moveTo(NodeState.RUNNING);
    }

    /** A test kit's start ({@link EngineDriver}): pollers, committer and registration; no background loop. */
    private void startDriven() {
        NodeState state = lifecycle.state();
        if (state == NodeState.STARTING || state == NodeState.STOPPED) {
            requireKnownSchemaVersion();
            committer.start();
            registry.renew();
            owners.start();
            lifecycle.moveTo(NodeState.RUNNING);
        }
    }

    /** Whether this engine runs on the schema's test clock ({@link EngineDriver}). */
    boolean onTestClock() {
        return movableClock;
    }

    /** For {@link EngineDriver}: the parts it drives in turn, in place of the background loops. */
    EngineDriver.Driven driven() {
        return new EngineDriver.Driven(deadlines, recurring, owners, picksHeld);
    }

    /**
     * Refuses to start, before anything is written, against a schema newer than this code (a rollback past a schema
     * upgrade: docs/DESIGN.md, "Data model"). A database that cannot answer only makes it log, as the whole start does.
     */
    private void requireKnownSchemaVersion() {
        try {
            DurableSchema.named(settings.schema()).requireKnownVersion(dataSource);
        } catch (SchemaTooNewException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("Could not read the version of durable's schema '{}' at start: {}", settings.schema(),
                    e.toString());
        }
    }

    /**
     * Stops gracefully: no new picks; running steps get {@code shutdownGracePeriod} to finish and have their
     * outcomes written; steps still running then are interrupted and their rows released to runnable at once
     * (attempt unchanged) so any node can take them without waiting for their leases to expire. The engine can be
     * started again; {@link #close()} also ends its threads for good.
     */
    public synchronized void stop() {
        NodeState state = lifecycle.state();
        if (state == NodeState.STARTING || state == NodeState.STOPPED) {
            return;
        }
        lifecycle.moveTo(NodeState.DRAINING);
        // No more picks or inline continuations; claimed rows that have not started are handed back at once:
        // draining runs only what already runs.
        owners.drain();
        probeLoop.stop(COMPONENT_STOP_TIMEOUT);
        wakeUps.stop(COMPONENT_STOP_TIMEOUT);
        owners.stopPolling(COMPONENT_STOP_TIMEOUT);
        if (!owners.awaitNoClaims(settings.shutdownGracePeriod())) {
            owners.releaseUnfinished();
            // Steps already writing their outcome get a moment to finish.
            owners.awaitNoClaims(RELEASED_STEP_WAIT);
        }
        committer.stop(COMPONENT_STOP_TIMEOUT);
        heartbeatLoop.stop(COMPONENT_STOP_TIMEOUT);
        reaperLoop.stop(COMPONENT_STOP_TIMEOUT);
        deadlineLoop.stop(COMPONENT_STOP_TIMEOUT);
        scheduleLoop.stop(COMPONENT_STOP_TIMEOUT);
        upkeep.forEach(loop -> loop.stop(COMPONENT_STOP_TIMEOUT));
        registry.forget();
        lifecycle.moveTo(NodeState.STOPPED);
    }

    /**
     * Stops gracefully (see {@link #stop()}), then ends the step-timeout timer and the engine's own step threads
     * (a user-supplied executor is left alone). Idempotent; a closed engine cannot be started again.
     */
    @Override
    public synchronized void close() {
        stop();
        if (!closed) {
            closed = true;
            timer.shutdownNow();
            if (ownsStepThreads && stepThreads instanceof ExecutorService pool) {
                pool.shutdownNow();
            }
        }
    }

    /**
     * This engine's node id, stored as {@code lease_owner}: the node name plus a suffix drawn when the engine is
     * built, so every process start has its own (a stop and start of the same engine keeps it).
     */
    public String nodeId() {
        return nodeId;
    }

    public NodeState state() {
        return lifecycle.state();
    }

    /** Why the node is degraded, if it is. */
    public Optional<Throwable> databaseError() {
        return lifecycle.databaseError();
    }

    public EngineSettings settings() {
        return settings;
    }

    public MachineRegistry machines() {
        return machines;
    }

    public EngineStats stats() {
        return stats;
    }

    /**
     * The claims this node holds now, all queues: rows waiting for a slot, running, or committing their outcome, and
     * claims promised to local starts whose rows have not arrived yet.
     */
    public int claims() {
        return owners.claims();
    }

    /** Running steps that ignored an interrupt past the zombie grace period and have not ended yet. */
    public int zombies() {
        return owners.zombies();
    }

    /** Whether zombies exceed {@code maxZombies} (when that is not 0): the node should be restarted. */
    public boolean hasTooManyZombies() {
        return settings.maxZombies() > 0 && zombies() > settings.maxZombies();
    }

    /** This node's view of its queues, by name. */
    public Map<String, QueueStatus> queues() {
        Map<String, QueueStatus> status = new TreeMap<>();
        owners.all().forEach((name, queue) -> status.put(name, new QueueStatus(name, queue.concurrency(),
                queue.claims(), queue.isPaused(), queue.isActive(), queue.limitStatus())));
        return status;
    }

    /** Stops picking from {@code queue} on this node until {@link #resume(String)}; running steps go on. */
    public void pause(String queue) {
        owner(queue).pause();
    }

    public void resume(String queue) {
        owner(queue).resume();
    }

    /** Wakes the poller of {@code queue} on this node (no-op for a queue this node does not work). */
    public void wake(String queue) {
        owners.wake(queue);
    }

    /**
     * Runs the reaper now, on the calling thread, and then the watch for stranded instances and the deploy check's
     * turn; returns how many claims it returned to runnable. A hook for tests, from this package (it is not API).
     */
    long reapNow() {
        long before = stats.reaped();
        reaper.reap();
        registry.watchStranded();
        deployGuard.onReaperRun();
        return stats.reaped() - before;
    }

    /**
     * Runnable instances of machine versions no live node runs (this one included), by machine and version, as the
     * last reaper run found them. They are not picked: they wait for a node with their version. Each node also
     * logs a WARN once per such machine version.
     */
    public List<StrandedInstances> stranded() {
        return registry.stranded();
    }

    /**
     * Due recurring schedules whose machine no live node runs, as the last reaper run found them: their ticks wait
     * until a node with the machine starts. Each node also logs a WARN once per such schedule.
     */
    public List<StrandedSchedule> strandedSchedules() {
        return registry.strandedSchedules();
    }

    /**
     * Checks now whether this node's code can run what is in flight in the database (docs/DESIGN.md, "The deploy
     * check"): a verdict per group of unfinished and failed instances, from the stored states of a sample of each.
     * Reads the database; what it costs grows with the number of groups, not of instances.
     */
    public DeployCheck checkDeploy() {
        return new DeployCheck(DeployVerdicts.againstInventory(
                inFlightRepository.read(classifier.judgesPendingPayloads()), classifier, machines));
    }

    /**
     * The last deploy check this node ran by itself: at its start, and on every reaper run while it holds back
     * ({@link #heldByDeployCheck()}); empty when {@link EngineSettings#deployCheck()} is off or no check got an answer
     * from the database yet.
     */
    public Optional<DeployCheck> lastDeployCheck() {
        return deployGuard.last();
    }

    /**
     * Whether this node picks from no queue because its deploy check has not passed ({@link DeployCheck.Mode#FAIL}):
     * its code cannot run some unfinished instances, or the check could not read the database yet.
     */
    public boolean heldByDeployCheck() {
        return deployGuard.holding();
    }

    /** How many polls the deploy check kept from picking. A hook for tests, like {@link #reapNow()}. */
    long pollsHeldByDeployCheck() {
        return deployGuard.refusedPolls();
    }

    /** The node's listener (idle when it polls only). A hook for tests, like {@link #reapNow()}. */
    WakeUpListener wakeUpListener() {
        return wakeUps;
    }

    /** Extends this node's leases now, on the calling thread. A hook for tests, like {@link #reapNow()}. */
    void heartbeatNow() {
        heartbeat.beat();
    }

    /** The owner of a configured queue (package-private: tests read its counts). */
    QueueOwner owner(String queue) {
        QueueOwner owner = owners.get(queue);
        if (owner == null) {
            throw new IllegalArgumentException("Queue '" + queue + "' is not configured on this node; queues: "
                    + owners.all().keySet());
        }
        return owner;
    }

    private String describeQueues() {
        List<String> described = new ArrayList<>();
        owners.all().forEach((name, queue) -> described.add(name + "(concurrency " + queue.concurrency() + ")"));
        return String.join(", ", described);
    }

    private static String randomSuffix() {
        return Long.toString(new SecureRandom().nextLong() >>> 1, 36);
    }

    /**
     * This node's view of one queue.
     *
     * @param active whether this node polls it (it has slots and registered machines on it)
     * @param limits its cluster-wide limits, as this node's last pick saw their use; null when it has none
     */
    public record QueueStatus(String name, int concurrency, int claims, boolean paused, boolean active,
            @Nullable LimitStatus limits) {
    }

    /** Builds a {@link DurableEngine}. */
    public static final class Builder {

        private final DataSource dataSource;
        private final MachineRegistry machines;
        private EngineSettings settings = EngineSettings.defaults();
        private JsonCodec codec = new JacksonJsonCodec();
        private DurableListener listener = DurableListener.NONE;
        private @Nullable Executor stepThreads;
        boolean movableClock;
        private ObservationRegistry observations = ObservationRegistry.NOOP;

        private Builder(DataSource dataSource, MachineRegistry machines) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
            this.machines = Objects.requireNonNull(machines, "machines must not be null");
        }

        public Builder settings(EngineSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings must not be null");
            return this;
        }

        /** How states, results and payloads become JSON; default: a plain Jackson {@code JsonMapper}. */
        public Builder jsonCodec(JsonCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec must not be null");
            return this;
        }

        public Builder listener(DurableListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        /**
         * Where steps run; default: virtual threads if {@link EngineSettings#virtualThreads()} and the JVM has them,
         * else a pool of platform threads. The executor must run tasks concurrently; the queues' slots bound how many.
         */
        public Builder stepThreads(@Nullable Executor stepThreads) {
            this.stepThreads = stepThreads;
            return this;
        }

        /**
         * Where steps and the client's calls are observed (docs/DESIGN.md, "Tracing"); default:
         * {@code ObservationRegistry.NOOP}, which costs nothing but the MDC keys of a running step.
         */
        public Builder observationRegistry(ObservationRegistry observations) {
            this.observations = Objects.requireNonNull(observations, "observations must not be null");
            return this;
        }

        /**
         * @throws InvalidSettingException if a machine runs on a queue the settings do not configure
         */
        public DurableEngine build() {
            return new DurableEngine(this);
        }
    }
}
