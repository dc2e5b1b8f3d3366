package dev.durable.boot.autoconfigure;

import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.WakeUps;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of durable, under {@code durable.*}. Immutable. Every default of an engine setting is the engine's
 * own {@code DEFAULT_*} constant of {@link EngineSettings} and {@link QueueSettings}, never written here again;
 * values are checked by the engine's settings when the engine is built, and an invalid one fails the start naming
 * its property. The settings bound to each other (lease-ttl and heartbeat-interval; poll-interval,
 * idle-poll-interval and schedule-misfire-threshold) stay {@code null} when unset: an unset one follows those the
 * user set (each says how), and only two values the user set can conflict.
 *
 * <p>How the defaults reach the binder and the IDE: a number, a boolean or a name is a compile-time constant, so
 * its {@link DefaultValue @DefaultValue} is the constant itself ({@code "" + CONSTANT}) and the configuration
 * processor writes it to the metadata. A {@link Duration} constant is not, so such a property binds as
 * {@code null} when unset and takes the constant here; the IDE learns its default from
 * {@code META-INF/additional-spring-configuration-metadata.json}, which {@code DurablePropertiesTest} holds equal
 * to the constants.
 */
@ConfigurationProperties("durable")
public final class DurableProperties {

    /** Whether durable is enabled: the engine, client, metrics, health indicator and endpoint. */
    private final boolean enabled;

    /**
     * This node's stable name, stored (with a per-start suffix) as the owner of the claims it runs. Letters,
     * digits, '.', '_' and '-'. Default: the host name.
     */
    private final @Nullable String nodeName;

    /** The PostgreSQL schema that holds durable's tables. */
    private final String schema;

    /**
     * Whether to create or update durable's tables at startup by running its shipped Liquibase changelog. Turn
     * off when the tables are managed by the application's own migrations.
     */
    private final boolean initializeSchema;

    /**
     * How long a claim on a running step lives without a heartbeat. Unset: 60s, or three heartbeat-intervals when
     * heartbeat-interval is set longer than 20s.
     */
    private final @Nullable Duration leaseTtl;

    /**
     * How often this node extends the leases of its running steps; at most a third of lease-ttl. Unset: 20s, or a third
     * of lease-ttl when lease-ttl is set shorter than 60s.
     */
    private final @Nullable Duration heartbeatInterval;

    /**
     * How often a node that has seen work in the last 10 seconds looks for work other nodes made (due rows of its
     * queues, due await deadlines and schedule ticks), in one statement. Starts, signals and commits made through this
     * node wake its queues at once. At most idle-poll-interval. Unset: 100ms, or idle-poll-interval when that is set
     * shorter.
     */
    private final @Nullable Duration pollInterval;

    /**
     * How often a node that has seen no work in the last 10 seconds looks for work other nodes made. At least
     * poll-interval, and shorter than schedule-misfire-threshold. Unset: 1s, or poll-interval when that is set longer,
     * or half of schedule-misfire-threshold (not below poll-interval) when that is set to 1s or less.
     */
    private final @Nullable Duration idlePollInterval;

    /** How often expired leases (steps of crashed nodes) are returned to runnable. */
    private final Duration reaperInterval;

    /** The most expired claims one reaper statement returns, and the most await deadlines one sweep statement fires. */
    private final int reaperBatchSize;

    /**
     * How long a stopping node lets running steps finish before it interrupts them and releases their rows for
     * other nodes.
     */
    private final Duration shutdownGracePeriod;

    /**
     * The queues this node works, by name, each with its concurrency (default 10), batch-size (default 256) and
     * targets (targets.oldest-runnable-age, unset by default). The 'default' queue is always configured; every queue a
     * machine names must be configured.
     */
    private final Map<String, Queue> queues;

    /**
     * What this node knows of the machines beyond their annotations, by machine name: their targets (the time-at-step
     * targets of their steps).
     */
    private final Map<String, Machine> machines;

    /** How long any step may run before it is interrupted; machines and steps may set their own. Default: none. */
    private final @Nullable Duration stepTimeout;

    /** How long an interrupted step may take to end before it counts as a zombie. */
    private final Duration zombieGracePeriod;

    /** How many zombie steps the node tolerates before its health is DOWN; 0 to never report zombies as DOWN. */
    private final int maxZombies;

    /**
     * How long the outcome of a finished step is retried while the database cannot be reached, before the step
     * is left to the reaper.
     */
    private final Duration outcomeRetryTimeout;

    /** The longest pause between attempts of the node's background work while the database cannot be reached. */
    private final Duration maxRetryBackoff;

    /**
     * How long an outcome's commit (or a pick) may be held back so that the outcomes of other steps still running
     * join the same transaction (or pick). Never applies when nothing else runs; 0 turns it off.
     */
    private final Duration batchWindow;

    /**
     * Whether a step returning next runs the next step at once on the claim it already holds (its outcome still
     * commits first), saving a pick per step of a chain.
     */
    private final boolean inlineNextSteps;

    /**
     * How late a recurring schedule's tick may be found and still count as on time; later ticks were missed and
     * follow the schedule's miss policy (skip, run once, run each). Longer than idle-poll-interval. Unset: 1m, or twice
     * idle-poll-interval when that is 1m or more.
     */
    private final @Nullable Duration scheduleMisfireThreshold;

    /**
     * What this node does at its start with the check of what is in flight against its code: 'off'; 'warn' to log a
     * WARN for each group of instances its code cannot run; 'fail' to also pick from no queue (the application starts,
     * the health is OUT_OF_SERVICE) until its code can run them all, checked again every reaper-interval.
     */
    private final DeployCheck.Mode deployCheck;

    /**
     * How this node hears of other nodes' work and cancels: 'listen' (LISTEN on one dedicated connection of the
     * DataSource, polling kept as the fallback) or 'poll' (polling only: the mode behind a connection pooler in
     * transaction mode such as PgBouncer, where LISTEN cannot work).
     */
    private final WakeUps wakeUps;

    /** How long ended instances are kept before every node's retention sweep deletes them. */
    private final Retention retention;

    /** The history of every instance's transitions. */
    private final History history;

    /**
     * What becomes of an instance whose step cannot run without losing stored data (its stored state would lose
     * properties when read as its state type, or its upcast failed): suspend (it waits, unfinished, until an operator
     * retries it) or fail. Either way the step is not run and the stored state is kept.
     */
    private final EngineSettings.LossyState lossyState;

    /**
     * How a step that throws (or times out) is retried when no @OnError method decides, unless its machine or the
     * step says otherwise with @Retry: each retry is a durable timer.
     */
    private final Retry retry;

    /** Metrics. */
    private final Metrics metrics;

    public DurableProperties(@DefaultValue("true") boolean enabled, @Nullable String nodeName,
            @DefaultValue(EngineSettings.DEFAULT_SCHEMA) String schema, @DefaultValue("true") boolean initializeSchema,
            @Nullable Duration leaseTtl, @Nullable Duration heartbeatInterval, @Nullable Duration pollInterval,
            @Nullable Duration idlePollInterval, @Nullable Duration reaperInterval,
            @DefaultValue("" + EngineSettings.DEFAULT_REAPER_BATCH_SIZE) int reaperBatchSize,
            @Nullable Duration shutdownGracePeriod, @Nullable Map<String, Queue> queues,
            @Nullable Map<String, Machine> machines,
            @Nullable Duration stepTimeout, @Nullable Duration zombieGracePeriod,
            @DefaultValue("" + EngineSettings.DEFAULT_MAX_ZOMBIES) int maxZombies,
            @Nullable Duration outcomeRetryTimeout, @Nullable Duration maxRetryBackoff, @Nullable Duration batchWindow,
            @DefaultValue("" + EngineSettings.DEFAULT_INLINE_NEXT_STEPS) boolean inlineNextSteps,
            @Nullable Duration scheduleMisfireThreshold, DeployCheck.@Nullable Mode deployCheck,
            @Nullable WakeUps wakeUps,
            @DefaultValue Retention retention, @DefaultValue History history,
            EngineSettings.@Nullable LossyState lossyState, @DefaultValue Retry retry,
            @DefaultValue Metrics metrics) {
        this.enabled = enabled;
        this.nodeName = nodeName;
        this.schema = schema;
        this.initializeSchema = initializeSchema;
        // Unset stays unset for the settings bound to others: the engine gives each the value the set ones need.
        this.leaseTtl = leaseTtl;
        this.heartbeatInterval = heartbeatInterval;
        this.pollInterval = pollInterval;
        this.idlePollInterval = idlePollInterval;
        this.reaperInterval = orDefault(reaperInterval, EngineSettings.DEFAULT_REAPER_INTERVAL);
        this.reaperBatchSize = reaperBatchSize;
        this.shutdownGracePeriod = orDefault(shutdownGracePeriod, EngineSettings.DEFAULT_SHUTDOWN_GRACE_PERIOD);
        this.queues = queues == null ? Map.of() : new TreeMap<>(queues);
        this.machines = machines == null ? Map.of() : new TreeMap<>(machines);
        this.stepTimeout = stepTimeout;
        this.zombieGracePeriod = orDefault(zombieGracePeriod, EngineSettings.DEFAULT_ZOMBIE_GRACE_PERIOD);
        this.maxZombies = maxZombies;
        this.outcomeRetryTimeout = orDefault(outcomeRetryTimeout, EngineSettings.DEFAULT_OUTCOME_RETRY_TIMEOUT);
        this.maxRetryBackoff = orDefault(maxRetryBackoff, EngineSettings.DEFAULT_MAX_RETRY_BACKOFF);
        this.batchWindow = orDefault(batchWindow, EngineSettings.DEFAULT_BATCH_WINDOW);
        this.inlineNextSteps = inlineNextSteps;
        this.scheduleMisfireThreshold = scheduleMisfireThreshold;
        this.deployCheck = Objects.requireNonNullElse(deployCheck, EngineSettings.DEFAULT_DEPLOY_CHECK);
        this.wakeUps = Objects.requireNonNullElse(wakeUps, EngineSettings.DEFAULT_WAKE_UPS);
        this.retention = retention;
        this.history = history;
        this.lossyState = lossyState == null ? EngineSettings.DEFAULT_LOSSY_STATE : lossyState;
        this.retry = retry;
        this.metrics = metrics;
    }

    /** The configured duration, or the engine's default when the property is not set. */
    private static Duration orDefault(@Nullable Duration configured, Duration engineDefault) {
        return Objects.requireNonNullElse(configured, engineDefault);
    }

    public boolean isEnabled() {
        return enabled;
    }

    public @Nullable String getNodeName() {
        return nodeName;
    }

    public String getSchema() {
        return schema;
    }

    public boolean isInitializeSchema() {
        return initializeSchema;
    }

    /** The configured lease-ttl; {@code null} when unset (the engine resolves it, see the property). */
    public @Nullable Duration getLeaseTtl() {
        return leaseTtl;
    }

    /** The configured heartbeat-interval; {@code null} when unset. */
    public @Nullable Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    /** The configured poll-interval; {@code null} when unset. */
    public @Nullable Duration getPollInterval() {
        return pollInterval;
    }

    /** The configured idle-poll-interval; {@code null} when unset. */
    public @Nullable Duration getIdlePollInterval() {
        return idlePollInterval;
    }

    public Duration getReaperInterval() {
        return reaperInterval;
    }

    public int getReaperBatchSize() {
        return reaperBatchSize;
    }

    public Duration getShutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    public Map<String, Queue> getQueues() {
        return queues;
    }

    public Map<String, Machine> getMachines() {
        return machines;
    }

    public @Nullable Duration getStepTimeout() {
        return stepTimeout;
    }

    public Duration getZombieGracePeriod() {
        return zombieGracePeriod;
    }

    public int getMaxZombies() {
        return maxZombies;
    }

    public Duration getOutcomeRetryTimeout() {
        return outcomeRetryTimeout;
    }

    public Duration getMaxRetryBackoff() {
        return maxRetryBackoff;
    }

    public Duration getBatchWindow() {
        return batchWindow;
    }

    public boolean isInlineNextSteps() {
        return inlineNextSteps;
    }

    /** The configured schedule-misfire-threshold; {@code null} when unset. */
    public @Nullable Duration getScheduleMisfireThreshold() {
        return scheduleMisfireThreshold;
    }

    public DeployCheck.Mode getDeployCheck() {
        return deployCheck;
    }

    public WakeUps getWakeUps() {
        return wakeUps;
    }

    public Retention getRetention() {
        return retention;
    }

    public History getHistory() {
        return history;
    }

    public EngineSettings.LossyState getLossyState() {
        return lossyState;
    }

    public Retry getRetry() {
        return retry;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    /** How this node works one queue. */
    public static final class Queue {

        /** How many of the queue's steps this node runs at once; 0 to run none here (other nodes do). */
        private final int concurrency;

        /** The most rows one poll claims; a poll never claims more than the free slots. */
        private final int batchSize;

        /** The queue's target (docs/DESIGN.md, "Targets"). */
        private final QueueTargets targets;

        /**
         * At most this many of the queue's steps executing at once on all nodes together (claimed rows: waiting for a
         * slot, running or committing); every node that works the queue must set the same. Default: no limit
         * (docs/DESIGN.md, "Cluster-wide limits").
         */
        private final @Nullable Integer clusterConcurrency;

        /**
         * At most this many of the queue's steps started per window on all nodes together, as {@code
         * <starts>/<window>} (e.g. {@code 200/1s}, {@code 50/100ms}): a token bucket of that many starts, refilled on
         * the database's clock; every node that works the queue must set the same. Default: no limit.
         */
        private final @Nullable String clusterRate;

        public Queue(@DefaultValue("" + QueueSettings.DEFAULT_CONCURRENCY) int concurrency,
                @DefaultValue("" + QueueSettings.DEFAULT_BATCH_SIZE) int batchSize,
                @DefaultValue QueueTargets targets, @Nullable Integer clusterConcurrency,
                @Nullable String clusterRate) {
            this.concurrency = concurrency;
            this.batchSize = batchSize;
            this.targets = targets;
            this.clusterConcurrency = clusterConcurrency;
            this.clusterRate = clusterRate;
        }

        public @Nullable Integer getClusterConcurrency() {
            return clusterConcurrency;
        }

        public @Nullable String getClusterRate() {
            return clusterRate;
        }

        public QueueTargets getTargets() {
            return targets;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public int getBatchSize() {
            return batchSize;
        }
    }

    /** The target of a queue, checked by every node that configures the queue. */
    public static final class QueueTargets {

        /**
         * How long a due instance of the queue may wait for a node to pick it; past it, it is a breach, reported by
         * durable.queue.target.breaches, the health's details and /actuator/durable. Default: none.
         */
        private final @Nullable Duration oldestRunnableAge;

        public QueueTargets(@Nullable Duration oldestRunnableAge) {
            this.oldestRunnableAge = oldestRunnableAge;
        }

        public @Nullable Duration getOldestRunnableAge() {
            return oldestRunnableAge;
        }
    }

    /** What this node knows of one machine beyond its annotations. */
    public static final class Machine {

        /** The machine's targets (docs/DESIGN.md, "Targets"). */
        private final MachineTargets targets;

        public Machine(@DefaultValue MachineTargets targets) {
            this.targets = targets;
        }

        public MachineTargets getTargets() {
            return targets;
        }
    }

    /** The targets of one machine, every version of it. */
    public static final class MachineTargets {

        /**
         * By step name: how long an instance may wait at the step, due or parked, counted from when it last fell due
         * or parked; past it, it is a breach, reported by durable.step.target.breaches, the health's details and
         * /actuator/durable. Default: none.
         */
        private final Map<String, Duration> timeAtStep;

        public MachineTargets(@Nullable Map<String, Duration> timeAtStep) {
            this.timeAtStep = timeAtStep == null ? Map.of() : new TreeMap<>(timeAtStep);
        }

        public Map<String, Duration> getTimeAtStep() {
            return timeAtStep;
        }
    }

    /** How long ended instances are kept, and how the sweep that deletes them runs. */
    public static final class Retention {

        /** How long done instances (with their signals and history) are kept; unset or 0: forever. */
        private final @Nullable Duration done;

        /** How long failed instances (with their signals and history) are kept; unset or 0: forever. */
        private final @Nullable Duration failed;

        /** How long cancelled instances (with their signals and history) are kept; unset or 0: forever. */
        private final @Nullable Duration cancelled;

        /** How often each node looks for ended instances past their retention. */
        private final Duration interval;

        /** The most instances one delete statement removes; the sweep repeats it until none is left. */
        private final int batchSize;

        public Retention(@Nullable Duration done, @Nullable Duration failed, @Nullable Duration cancelled,
                @Nullable Duration interval,
                @DefaultValue("" + EngineSettings.DEFAULT_RETENTION_BATCH_SIZE) int batchSize) {
            this.done = done;
            this.failed = failed;
            this.cancelled = cancelled;
            this.interval = orDefault(interval, EngineSettings.DEFAULT_RETENTION_INTERVAL);
            this.batchSize = batchSize;
        }

        public @Nullable Duration getDone() {
            return done;
        }

        public @Nullable Duration getFailed() {
            return failed;
        }

        public @Nullable Duration getCancelled() {
            return cancelled;
        }

        public Duration getInterval() {
            return interval;
        }

        public int getBatchSize() {
            return batchSize;
        }
    }

    /** The history of every instance's transitions, written with each transition and deleted with its instance. */
    public static final class History {

        /**
         * Whether every committed transition of an instance (its steps' outcomes, cancels, retries, reaps) is recorded
         * in its history, in the transaction that commits it.
         */
        private final boolean enabled;

        /**
         * The longest patch of the state a history entry records (what its transition changed, as an RFC 6902 JSON
         * Patch), in bytes of UTF-8; a longer one keeps the operations that fit and ends with a marker saying it was
         * cut. 0: no patches.
         */
        private final int patchMaxBytes;

        public History(@DefaultValue("" + EngineSettings.DEFAULT_HISTORY) boolean enabled,
                @DefaultValue("" + EngineSettings.DEFAULT_HISTORY_PATCH_MAX_BYTES) int patchMaxBytes) {
            this.enabled = enabled;
            this.patchMaxBytes = patchMaxBytes;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public int getPatchMaxBytes() {
            return patchMaxBytes;
        }
    }

    /**
     * The engine's default retry policy: Spring's exponential back-off with jitter, in durable timers. The defaults are
     * {@link RetryPolicy}'s {@code DEFAULT_*} constants.
     */
    public static final class Retry {

        /**
         * How many times a failing step runs in all, the first run included; 1 for no retry (a step that throws fails
         * its instance at once). Every re-run counts, a crash's too.
         */
        private final int maxAttempts;

        /** The delay before the first retry. */
        private final Duration delay;

        /** What each further delay is multiplied by; 1 for a fixed delay. */
        private final double multiplier;

        /** The longest delay, jitter included. */
        private final Duration maxDelay;

        /**
         * How far the first delay may move at random, grown with the delay by the multiplier; a delay never moves
         * below delay nor above max-delay. 0 for none.
         */
        private final Duration jitter;

        /**
         * The types of failure that are never retried, with their subclasses, as fully qualified class names: the
         * instance fails at once.
         */
        private final List<Class<? extends Throwable>> nonRetryable;

        public Retry(@DefaultValue("" + RetryPolicy.DEFAULT_MAX_ATTEMPTS) int maxAttempts, @Nullable Duration delay,
                @DefaultValue("" + RetryPolicy.DEFAULT_MULTIPLIER) double multiplier, @Nullable Duration maxDelay,
                @Nullable Duration jitter, @Nullable List<Class<? extends Throwable>> nonRetryable) {
            this.maxAttempts = maxAttempts;
            this.delay = orDefault(delay, RetryPolicy.DEFAULT_DELAY);
            this.multiplier = multiplier;
            this.maxDelay = orDefault(maxDelay, RetryPolicy.DEFAULT_MAX_DELAY);
            this.jitter = orDefault(jitter, RetryPolicy.DEFAULT_JITTER);
            this.nonRetryable = nonRetryable == null ? List.of() : List.copyOf(nonRetryable);
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public Duration getDelay() {
            return delay;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public Duration getJitter() {
            return jitter;
        }

        public List<Class<? extends Throwable>> getNonRetryable() {
            return nonRetryable;
        }
    }

    /** Metrics of the engine. */
    public static final class Metrics {

        /**
         * How often the database gauges (durable.queue.* and durable.instances: the unfinished and failed instances per
         * queue, machine, version, status and reason) are refreshed from the database; the query runs in the
         * background, never on a scrape, so a scrape shows values at most this old.
         */
        private final Duration queueDepthRefreshInterval;

        public Metrics(@DefaultValue("15s") Duration queueDepthRefreshInterval) {
            this.queueDepthRefreshInterval = queueDepthRefreshInterval;
        }

        public Duration getQueueDepthRefreshInterval() {
            return queueDepthRefreshInterval;
        }
    }
}
