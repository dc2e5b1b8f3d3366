package dev.durable.runtime;

import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.support.SettingsChecks;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Everything the engine can be told, in one immutable object with the defaults below, checked in one place when
 * built ({@link Builder#build()}, which runs the runtime's {@code SettingsChecks}): the only way to make one is
 * {@link #builder()} (or {@link #toBuilder()} of another), so every instance has passed that check. The Spring Boot
 * starter maps {@code durable.*} properties onto it.
 *
 * <p>Bound settings (lease and heartbeat; poll, idle poll and misfire threshold): one left unset follows those set (its
 * setter says how), so only two set values can conflict, refused naming both; {@code pollInterval(30s)} alone starts.
 */
public final class EngineSettings {

    public static final String DEFAULT_SCHEMA = DurableSchema.DEFAULT_NAME;
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(60);
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(20);
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);
    public static final Duration DEFAULT_IDLE_POLL_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_REAPER_INTERVAL = Duration.ofSeconds(30);
    public static final int DEFAULT_REAPER_BATCH_SIZE = 1000;
    public static final Duration DEFAULT_SHUTDOWN_GRACE_PERIOD = Duration.ofSeconds(30);
    public static final Duration DEFAULT_ZOMBIE_GRACE_PERIOD = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_ZOMBIES = 10;
    public static final Duration DEFAULT_OUTCOME_RETRY_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MAX_RETRY_BACKOFF = Duration.ofSeconds(5);
    public static final Duration DEFAULT_BATCH_WINDOW = Duration.ofMillis(2);
    public static final boolean DEFAULT_INLINE_NEXT_STEPS = false;
    public static final boolean DEFAULT_HISTORY = true;
    /** The longest patch of the state a history entry records (docs/DESIGN.md, "History"). */
    public static final int DEFAULT_HISTORY_PATCH_MAX_BYTES = 16_384;
    /** The smallest limit of a patch but 0 (none): room for the marker of a cut patch, and a little more. */
    public static final int MIN_HISTORY_PATCH_MAX_BYTES = 128;
    public static final LossyState DEFAULT_LOSSY_STATE = LossyState.SUSPEND;
    /** How a failed step is retried unless its machine or the step says otherwise: {@link RetryPolicy#defaults()}. */
    public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.defaults();
    public static final Duration DEFAULT_SCHEDULE_MISFIRE_THRESHOLD = Duration.ofMinutes(1);
    public static final Duration DEFAULT_RETENTION_INTERVAL = Duration.ofMinutes(1);
    public static final int DEFAULT_RETENTION_BATCH_SIZE = 1000;
    /** What a node does with the deploy check at its start: warn about what its code cannot run. */
    public static final DeployCheck.Mode DEFAULT_DEPLOY_CHECK = DeployCheck.Mode.WARN;
    public static final WakeUps DEFAULT_WAKE_UPS = WakeUps.LISTEN;
    /** The queue every node works unless configured otherwise. */
    public static final String DEFAULT_QUEUE = MachineDefinition.DEFAULT_QUEUE;
    /** A node that has picked work within this long counts as busy, and looks for work every poll interval. */
    public static final Duration ACTIVE_WINDOW = Duration.ofSeconds(10);

    /**
     * The values of the settings, one component per setting, in the order they print: equality, hash code and the
     * printed form follow from it. A new setting is a component here, a field and a setter of the {@link Builder},
     * its argument in {@link Builder#build()}, a getter, and its check in {@code SettingsChecks}.
     */
    private record Values(
            String nodeName,
            String schema,
            Duration leaseTtl,
            Duration heartbeatInterval,
            Duration pollInterval,
            Duration idlePollInterval,
            Duration reaperInterval,
            int reaperBatchSize,
            Duration shutdownGracePeriod,
            Map<String, QueueSettings> queues,
            @Nullable Duration stepTimeout,
            Duration zombieGracePeriod,
            int maxZombies,
            boolean virtualThreads,
            Duration outcomeRetryTimeout,
            Duration maxRetryBackoff,
            Duration batchWindow,
            boolean inlineNextSteps,
            boolean history,
            int historyPatchMaxBytes,
            LossyState lossyState,
            RetryPolicy retryPolicy,
            Duration scheduleMisfireThreshold,
            @Nullable Duration retentionDone,
            @Nullable Duration retentionFailed,
            @Nullable Duration retentionCancelled,
            Duration retentionInterval,
            int retentionBatchSize,
            DeployCheck.Mode deployCheck,
            WakeUps wakeUps) {
    }

    private final Values values;
    /** The bound settings as they were set ({@code null}: unset), which {@link #toBuilder()} hands on. */
    private final SettingsChecks.Bound set;

    private EngineSettings(Values values, SettingsChecks.Bound set) {
        this.values = values;
        this.set = set;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The defaults, with the host name as node name. */
    public static EngineSettings defaults() {
        return builder().build();
    }

    /** A builder of these settings; the bound ones left unset stay unset, following what the builder is told. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.nodeName = values.nodeName();
        builder.schema = values.schema();
        builder.leaseTtl = set.leaseTtl();
        builder.heartbeatInterval = set.heartbeatInterval();
        builder.pollInterval = set.pollInterval();
        builder.idlePollInterval = set.idlePollInterval();
        builder.reaperInterval = values.reaperInterval();
        builder.reaperBatchSize = values.reaperBatchSize();
        builder.shutdownGracePeriod = values.shutdownGracePeriod();
        builder.queues = new TreeMap<>(values.queues());
        builder.stepTimeout = values.stepTimeout();
        builder.zombieGracePeriod = values.zombieGracePeriod();
        builder.maxZombies = values.maxZombies();
        builder.virtualThreads = values.virtualThreads();
        builder.outcomeRetryTimeout = values.outcomeRetryTimeout();
        builder.maxRetryBackoff = values.maxRetryBackoff();
        builder.batchWindow = values.batchWindow();
        builder.inlineNextSteps = values.inlineNextSteps();
        builder.history = values.history();
        builder.historyPatchMaxBytes = values.historyPatchMaxBytes();
        builder.lossyState = values.lossyState();
        builder.retryPolicy = values.retryPolicy();
        builder.scheduleMisfireThreshold = set.scheduleMisfireThreshold();
        builder.retentionDone = values.retentionDone();
        builder.retentionFailed = values.retentionFailed();
        builder.retentionCancelled = values.retentionCancelled();
        builder.retentionInterval = values.retentionInterval();
        builder.retentionBatchSize = values.retentionBatchSize();
        builder.deployCheck = values.deployCheck();
        builder.wakeUps = values.wakeUps();
        return builder;
    }

    /** This node's stable name (default: the host name); node ids add a per-engine suffix. */
    public String nodeName() {
        return values.nodeName();
    }

    /** The PostgreSQL schema of durable's tables. */
    public String schema() {
        return values.schema();
    }

    /** How long a claim lives without a heartbeat. */
    public Duration leaseTtl() {
        return values.leaseTtl();
    }

    /** How often this node extends its leases; at most a third of the lease, so two missed beats do not lose it. */
    public Duration heartbeatInterval() {
        return values.heartbeatInterval();
    }

    /** How often a node that saw work in the last {@link #ACTIVE_WINDOW} looks for other nodes' work. */
    public Duration pollInterval() {
        return values.pollInterval();
    }

    /** How often a node that has seen no work in the last {@link #ACTIVE_WINDOW} looks, as {@link #pollInterval()}. */
    public Duration idlePollInterval() {
        return values.idlePollInterval();
    }

    /** How often expired leases are returned to runnable. */
    public Duration reaperInterval() {
        return values.reaperInterval();
    }

    /** The most rows one reaper statement returns, and the most await deadlines one sweep statement fires. */
    public int reaperBatchSize() {
        return values.reaperBatchSize();
    }

    /** How long a stopping node lets running steps finish before interrupting them and releasing their rows. */
    public Duration shutdownGracePeriod() {
        return values.shutdownGracePeriod();
    }

    /** The queues this node works, by name. */
    public Map<String, QueueSettings> queues() {
        return values.queues();
    }

    /** How long any step may run before it is interrupted; null: no limit (machines and steps may set theirs). */
    public @Nullable Duration stepTimeout() {
        return values.stepTimeout();
    }

    /** How long an interrupted step may take to end before it counts as a zombie. */
    public Duration zombieGracePeriod() {
        return values.zombieGracePeriod();
    }

    /** Past this many zombies the node reports itself down (0: never). */
    public int maxZombies() {
        return values.maxZombies();
    }

    /** Whether steps run on virtual threads (ignored, with a warning, before Java 21). */
    public boolean virtualThreads() {
        return values.virtualThreads();
    }

    /** How long a finished step's outcome is retried while the database is unreachable, then left to the reaper. */
    public Duration outcomeRetryTimeout() {
        return values.outcomeRetryTimeout();
    }

    /** The longest pause between attempts of the node's background work while the database cannot be reached. */
    public Duration maxRetryBackoff() {
        return values.maxRetryBackoff();
    }

    /**
     * How long an outcome's commit (or a pick) may wait for those of steps still running (or slots about to free) to
     * join it; never when nothing else runs; {@code 0}: off.
     */
    public Duration batchWindow() {
        return values.batchWindow();
    }

    /** Whether a step returning {@code next} runs the next step at once on its claim, after its commit. */
    public boolean inlineNextSteps() {
        return values.inlineNextSteps();
    }

    /** Whether every committed transition is recorded in the instance's history (docs/DESIGN.md, "History"). */
    public boolean history() {
        return values.history();
    }

    /**
     * The longest patch of the state a history entry records, in bytes of UTF-8; 0: none (docs/DESIGN.md, "History").
     */
    public int historyPatchMaxBytes() {
        return values.historyPatchMaxBytes();
    }

    /**
     * What becomes of an instance whose step cannot run without losing data (docs/DESIGN.md, "Suspension"): the step
     * does not run, its state is kept; {@link LossyState#SUSPEND} (default) parks it, {@link LossyState#FAIL} fails it.
     */
    public LossyState lossyState() {
        return values.lossyState();
    }

    /**
     * How a failed step is retried unless its error handler, machine or step decides (docs/DESIGN.md, "Retry
     * policies"); {@link RetryPolicy#none()} fails the instance at the first failure.
     */
    public RetryPolicy retryPolicy() {
        return values.retryPolicy();
    }

    /**
     * How late a schedule's tick may be found and still count as on time; ticks found later were missed and follow
     * their schedule's {@link dev.durable.MissPolicy}. Longer than the poll interval (the sweep's longest pause).
     */
    public Duration scheduleMisfireThreshold() {
        return values.scheduleMisfireThreshold();
    }

    /** How long done instances are kept, with their signals, before the retention sweep deletes them; null: forever. */
    public @Nullable Duration retentionDone() {
        return values.retentionDone();
    }

    /** How long failed instances are kept before the retention sweep deletes them; null: forever. */
    public @Nullable Duration retentionFailed() {
        return values.retentionFailed();
    }

    /** How long cancelled instances are kept before the retention sweep deletes them; null: forever. */
    public @Nullable Duration retentionCancelled() {
        return values.retentionCancelled();
    }

    /** How often each node looks for ended instances past their retention. */
    public Duration retentionInterval() {
        return values.retentionInterval();
    }

    /** The most instances one retention statement deletes (a short transaction; the sweep repeats it). */
    public int retentionBatchSize() {
        return values.retentionBatchSize();
    }

    /** What this node does at its start with the deploy check (docs/DESIGN.md): nothing, warn, or hold back. */
    public DeployCheck.Mode deployCheck() {
        return values.deployCheck();
    }

    /** How this node hears of other nodes' work and cancels (docs/DESIGN.md, "Wake-ups"). */
    public WakeUps wakeUps() {
        return values.wakeUps();
    }

    /** The settings of {@code queue}, or {@code null} if this node is not configured for it. */
    public @Nullable QueueSettings queue(String queue) {
        return values.queues().get(queue);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof EngineSettings that && values.equals(that.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** {@code EngineSettings[nodeName=..., schema=..., ...]}, every setting by its name. */
    @Override
    public String toString() {
        return "EngineSettings" + values.toString().substring("Values".length());
    }

    /** A best-effort host name usable as a node name. */
    public static String defaultNodeName() {
        String name = System.getenv("HOSTNAME");
        if (name == null || name.isBlank()) {
            try {
                name = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                name = "node";
            }
        }
        String sanitized = name.replaceAll("[^A-Za-z0-9._-]", "-");
        return sanitized.length() > 100 ? sanitized.substring(0, 100) : sanitized;
    }

    /** Builds {@link EngineSettings}; every setter's default is the matching {@code DEFAULT_*} constant. */
    public static final class Builder {

        private @Nullable String nodeName;
        private String schema = DEFAULT_SCHEMA;
        private @Nullable Duration leaseTtl;
        private @Nullable Duration heartbeatInterval;
        private @Nullable Duration pollInterval;
        private @Nullable Duration idlePollInterval;
        private Duration reaperInterval = DEFAULT_REAPER_INTERVAL;
        private int reaperBatchSize = DEFAULT_REAPER_BATCH_SIZE;
        private Duration shutdownGracePeriod = DEFAULT_SHUTDOWN_GRACE_PERIOD;
        private Map<String, QueueSettings> queues = new TreeMap<>(Map.of(DEFAULT_QUEUE, QueueSettings.defaults()));
        private @Nullable Duration stepTimeout;
        private Duration zombieGracePeriod = DEFAULT_ZOMBIE_GRACE_PERIOD;
        private int maxZombies = DEFAULT_MAX_ZOMBIES;
        private boolean virtualThreads;
        private Duration outcomeRetryTimeout = DEFAULT_OUTCOME_RETRY_TIMEOUT;
        private Duration maxRetryBackoff = DEFAULT_MAX_RETRY_BACKOFF;
        private Duration batchWindow = DEFAULT_BATCH_WINDOW;
        private boolean inlineNextSteps = DEFAULT_INLINE_NEXT_STEPS;
        private boolean history = DEFAULT_HISTORY;
        private int historyPatchMaxBytes = DEFAULT_HISTORY_PATCH_MAX_BYTES;
        private LossyState lossyState = DEFAULT_LOSSY_STATE;
        private @Nullable RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
        private @Nullable Duration scheduleMisfireThreshold;
        private @Nullable Duration retentionDone;
        private @Nullable Duration retentionFailed;
        private @Nullable Duration retentionCancelled;
        private Duration retentionInterval = DEFAULT_RETENTION_INTERVAL;
        private int retentionBatchSize = DEFAULT_RETENTION_BATCH_SIZE;
        private DeployCheck.Mode deployCheck = DEFAULT_DEPLOY_CHECK;
        private WakeUps wakeUps = DEFAULT_WAKE_UPS;

        private Builder() {
        }

        public Builder nodeName(@Nullable String nodeName) {
            this.nodeName = nodeName;
            return this;
        }

        public Builder schema(String schema) {
            this.schema = schema;
            return this;
        }

        /** Unset: the default, or three heartbeat intervals when the heartbeat is set longer than a third of it. */
        public Builder leaseTtl(@Nullable Duration leaseTtl) {
            this.leaseTtl = leaseTtl;
            return this;
        }

        /** Unset: the default, or a third of the lease when the lease is set shorter than three of it. */
        public Builder heartbeatInterval(@Nullable Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        /** Unset: the default, or the idle poll interval when that is shorter. */
        public Builder pollInterval(@Nullable Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /** Unset: the default, or a longer poll interval, or half a misfire threshold set no longer than it. */
        public Builder idlePollInterval(@Nullable Duration idlePollInterval) {
            this.idlePollInterval = idlePollInterval;
            return this;
        }

        public Builder reaperInterval(Duration reaperInterval) {
            this.reaperInterval = reaperInterval;
            return this;
        }

        public Builder reaperBatchSize(int reaperBatchSize) {
            this.reaperBatchSize = reaperBatchSize;
            return this;
        }

        public Builder shutdownGracePeriod(Duration shutdownGracePeriod) {
            this.shutdownGracePeriod = shutdownGracePeriod;
            return this;
        }

        /** Adds or replaces one queue. */
        public Builder queue(String name, QueueSettings settings) {
            this.queues.put(name, settings);
            return this;
        }

        /** Replaces all queues (the default queue included). */
        public Builder queues(Map<String, QueueSettings> queues) {
            this.queues = new TreeMap<>(queues);
            return this;
        }

        public Builder stepTimeout(@Nullable Duration stepTimeout) {
            this.stepTimeout = stepTimeout;
            return this;
        }

        public Builder zombieGracePeriod(Duration zombieGracePeriod) {
            this.zombieGracePeriod = zombieGracePeriod;
            return this;
        }

        public Builder maxZombies(int maxZombies) {
            this.maxZombies = maxZombies;
            return this;
        }

        public Builder virtualThreads(boolean virtualThreads) {
            this.virtualThreads = virtualThreads;
            return this;
        }

        public Builder outcomeRetryTimeout(Duration outcomeRetryTimeout) {
            this.outcomeRetryTimeout = outcomeRetryTimeout;
            return this;
        }

        public Builder maxRetryBackoff(Duration maxRetryBackoff) {
            this.maxRetryBackoff = maxRetryBackoff;
            return this;
        }

        public Builder batchWindow(Duration batchWindow) {
            this.batchWindow = batchWindow;
            return this;
        }

        public Builder inlineNextSteps(boolean inlineNextSteps) {
            this.inlineNextSteps = inlineNextSteps;
            return this;
        }

        /** Whether every committed transition is recorded in the instance's history (default on). */
        public Builder history(boolean history) {
            this.history = history;
            return this;
        }

        /** The longest patch a history entry records, over which it is cut (default 16,384 bytes); 0: no patches. */
        public Builder historyPatchMaxBytes(int historyPatchMaxBytes) {
            this.historyPatchMaxBytes = historyPatchMaxBytes;
            return this;
        }

        /** What becomes of an instance whose step cannot run without losing data (default suspend). */
        public Builder lossyState(LossyState lossyState) {
            this.lossyState = Objects.requireNonNull(lossyState, "lossyState must not be null");
            return this;
        }

        /**
         * How a failed step is retried unless its machine or the step says otherwise (default
         * {@link RetryPolicy#defaults()}; {@link RetryPolicy#none()} for no retry). The policy checked its own values
         * when it was built.
         */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = retryPolicy;
            return this;
        }

        /** Unset: the default, or twice the idle poll interval when that is not shorter. */
        public Builder scheduleMisfireThreshold(@Nullable Duration scheduleMisfireThreshold) {
            this.scheduleMisfireThreshold = scheduleMisfireThreshold;
            return this;
        }

        /** How long done instances are kept; null or zero: forever (the default). */
        public Builder retentionDone(@Nullable Duration retentionDone) {
            this.retentionDone = retentionDone;
            return this;
        }

        /** How long failed instances are kept; null or zero: forever (the default). */
        public Builder retentionFailed(@Nullable Duration retentionFailed) {
            this.retentionFailed = retentionFailed;
            return this;
        }

        /** How long cancelled instances are kept; null or zero: forever (the default). */
        public Builder retentionCancelled(@Nullable Duration retentionCancelled) {
            this.retentionCancelled = retentionCancelled;
            return this;
        }

        public Builder retentionInterval(Duration retentionInterval) {
            this.retentionInterval = retentionInterval;
            return this;
        }

        public Builder retentionBatchSize(int retentionBatchSize) {
            this.retentionBatchSize = retentionBatchSize;
            return this;
        }

        /** What the node does with the deploy check at its start (default {@link DeployCheck.Mode#WARN}). */
        public Builder deployCheck(DeployCheck.Mode deployCheck) {
            this.deployCheck = deployCheck;
            return this;
        }

        /** How the node hears of other nodes' work and cancels (default {@link WakeUps#LISTEN}). */
        public Builder wakeUps(WakeUps wakeUps) {
            this.wakeUps = Objects.requireNonNull(wakeUps, "wakeUps must not be null");
            return this;
        }

        /**
         * Checks and builds the settings.
         *
         * @throws InvalidSettingException naming the first invalid setting
         */
        public EngineSettings build() {
            SettingsChecks.Bound set = new SettingsChecks.Bound(leaseTtl, heartbeatInterval, pollInterval,
                    idlePollInterval, scheduleMisfireThreshold);
            SettingsChecks.Bound bound = set.resolved();
            EngineSettings settings = new EngineSettings(new Values(
                    nodeName == null ? defaultNodeName() : nodeName, schema,
                    bound.leaseTtl(), bound.heartbeatInterval(), bound.pollInterval(), bound.idlePollInterval(),
                    reaperInterval, reaperBatchSize, shutdownGracePeriod, Map.copyOf(queues), stepTimeout,
                    zombieGracePeriod, maxZombies, virtualThreads, outcomeRetryTimeout, maxRetryBackoff, batchWindow,
                    inlineNextSteps, history, historyPatchMaxBytes, lossyState, retryPolicy,
                    bound.scheduleMisfireThreshold(), retentionDone, retentionFailed, retentionCancelled,
                    retentionInterval, retentionBatchSize, deployCheck, wakeUps), set);
            SettingsChecks.check(settings);
            return settings;
        }
    }

    /** What becomes of an instance whose step cannot run without losing data (see {@link #lossyState()}). */
    public enum LossyState {
        /**
         * The instance is suspended: it stays unfinished (it holds its unique key, and its parent waits for it) but is
         * never picked, is listed with the status {@code suspended}, and an operator's retry runs it again, on the code
         * deployed by then.
         */
        SUSPEND,
        /** The instance fails, as a step without an error handler fails; an operator's retry runs it again. */
        FAIL
    }
}
