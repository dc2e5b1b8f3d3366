package dev.durable.runtime;

import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Everything the engine can be told, in one immutable object with the defaults below, checked in one place
 * ({@link Builder#build()}): the only way to make one is {@link #builder()} (or {@link #toBuilder()} of another), so
 * every instance has passed that check. The Spring Boot starter maps {@code durable.*} properties onto it.
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
    public static final LossyState DEFAULT_LOSSY_STATE = LossyState.SUSPEND;
    public static final Duration DEFAULT_SCHEDULE_MISFIRE_THRESHOLD = Duration.ofMinutes(1);
    public static final Duration DEFAULT_RETENTION_INTERVAL = Duration.ofMinutes(1);
    public static final int DEFAULT_RETENTION_BATCH_SIZE = 1000;
    /** What a node does with the deploy check at its start: warn about what its code cannot run. */
    public static final DeployCheck.Mode DEFAULT_DEPLOY_CHECK = DeployCheck.Mode.WARN;
    /** The queue every node works unless configured otherwise. */
    public static final String DEFAULT_QUEUE = MachineDefinition.DEFAULT_QUEUE;
    /** A node that has picked work within this long counts as busy, and looks for work every poll interval. */
    public static final Duration ACTIVE_WINDOW = Duration.ofSeconds(10);

    private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    private final String nodeName;
    private final String schema;
    private final Duration leaseTtl;
    private final Duration heartbeatInterval;
    private final Duration pollInterval;
    private final Duration idlePollInterval;
    private final Duration reaperInterval;
    private final int reaperBatchSize;
    private final Duration shutdownGracePeriod;
    private final Map<String, QueueSettings> queues;
    private final @Nullable Duration stepTimeout;
    private final Duration zombieGracePeriod;
    private final int maxZombies;
    private final boolean virtualThreads;
    private final Duration outcomeRetryTimeout;
    private final Duration maxRetryBackoff;
    private final Duration batchWindow;
    private final boolean inlineNextSteps;
    private final boolean history;
    private final LossyState lossyState;
    private final Duration scheduleMisfireThreshold;
    private final @Nullable Duration retentionDone;
    private final @Nullable Duration retentionFailed;
    private final @Nullable Duration retentionCancelled;
    private final Duration retentionInterval;
    private final int retentionBatchSize;
    private final DeployCheck.Mode deployCheck;

    private EngineSettings(Builder builder, String nodeName) {
        this.nodeName = nodeName;
        this.schema = builder.schema;
        this.leaseTtl = builder.leaseTtl;
        this.heartbeatInterval = builder.heartbeatInterval;
        this.pollInterval = builder.pollInterval;
        this.idlePollInterval = builder.idlePollInterval;
        this.reaperInterval = builder.reaperInterval;
        this.reaperBatchSize = builder.reaperBatchSize;
        this.shutdownGracePeriod = builder.shutdownGracePeriod;
        this.queues = Map.copyOf(builder.queues);
        this.stepTimeout = builder.stepTimeout;
        this.zombieGracePeriod = builder.zombieGracePeriod;
        this.maxZombies = builder.maxZombies;
        this.virtualThreads = builder.virtualThreads;
        this.outcomeRetryTimeout = builder.outcomeRetryTimeout;
        this.maxRetryBackoff = builder.maxRetryBackoff;
        this.batchWindow = builder.batchWindow;
        this.inlineNextSteps = builder.inlineNextSteps;
        this.history = builder.history;
        this.lossyState = builder.lossyState;
        this.scheduleMisfireThreshold = builder.scheduleMisfireThreshold;
        this.retentionDone = builder.retentionDone;
        this.retentionFailed = builder.retentionFailed;
        this.retentionCancelled = builder.retentionCancelled;
        this.retentionInterval = builder.retentionInterval;
        this.retentionBatchSize = builder.retentionBatchSize;
        this.deployCheck = builder.deployCheck;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The defaults, with the host name as node name. */
    public static EngineSettings defaults() {
        return builder().build();
    }

    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.nodeName = nodeName;
        builder.schema = schema;
        builder.leaseTtl = leaseTtl;
        builder.heartbeatInterval = heartbeatInterval;
        builder.pollInterval = pollInterval;
        builder.idlePollInterval = idlePollInterval;
        builder.reaperInterval = reaperInterval;
        builder.reaperBatchSize = reaperBatchSize;
        builder.shutdownGracePeriod = shutdownGracePeriod;
        builder.queues = new TreeMap<>(queues);
        builder.stepTimeout = stepTimeout;
        builder.zombieGracePeriod = zombieGracePeriod;
        builder.maxZombies = maxZombies;
        builder.virtualThreads = virtualThreads;
        builder.outcomeRetryTimeout = outcomeRetryTimeout;
        builder.maxRetryBackoff = maxRetryBackoff;
        builder.batchWindow = batchWindow;
        builder.inlineNextSteps = inlineNextSteps;
        builder.history = history;
        builder.lossyState = lossyState;
        builder.scheduleMisfireThreshold = scheduleMisfireThreshold;
        builder.retentionDone = retentionDone;
        builder.retentionFailed = retentionFailed;
        builder.retentionCancelled = retentionCancelled;
        builder.retentionInterval = retentionInterval;
        builder.retentionBatchSize = retentionBatchSize;
        builder.deployCheck = deployCheck;
        return builder;
    }

    /** This node's stable name (default: the host name); node ids add a per-engine suffix. */
    public String nodeName() {
        return nodeName;
    }

    /** The PostgreSQL schema of durable's tables. */
    public String schema() {
        return schema;
    }

    /** How long a claim lives without a heartbeat. */
    public Duration leaseTtl() {
        return leaseTtl;
    }

    /**
     * How often this node extends the leases of its running steps; at most a third of the lease, so two missed beats do
     * not lose it.
     */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /**
     * How often a node that has seen work in the last {@link #ACTIVE_WINDOW} looks for work other nodes made: due rows
     * of its queues, due await deadlines and schedule ticks, in one statement (local starts, signals and commits wake
     * the poller they concern at once).
     */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** How often a node that has seen no work in the last {@link #ACTIVE_WINDOW} looks, as {@link #pollInterval()}. */
    public Duration idlePollInterval() {
        return idlePollInterval;
    }

    /** How often expired leases are returned to runnable. */
    public Duration reaperInterval() {
        return reaperInterval;
    }

    /** The most rows one reaper statement returns, and the most await deadlines one sweep statement fires. */
    public int reaperBatchSize() {
        return reaperBatchSize;
    }

    /** How long a stopping node lets running steps finish before interrupting them and releasing their rows. */
    public Duration shutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    /** The queues this node works, by name. */
    public Map<String, QueueSettings> queues() {
        return queues;
    }

    /**
     * How long any step may run before it is interrupted; {@code null} for no limit (machines and steps may set their
     * own).
     */
    public @Nullable Duration stepTimeout() {
        return stepTimeout;
    }

    /** How long an interrupted step may take to end before it counts as a zombie. */
    public Duration zombieGracePeriod() {
        return zombieGracePeriod;
    }

    /** Past this many zombies the node reports itself down (0: never). */
    public int maxZombies() {
        return maxZombies;
    }

    /** Whether steps run on virtual threads (ignored, with a warning, before Java 21). */
    public boolean virtualThreads() {
        return virtualThreads;
    }

    /**
     * How long the outcome of a finished step is retried while the database cannot be reached, before the step is left
     * to the reaper.
     */
    public Duration outcomeRetryTimeout() {
        return outcomeRetryTimeout;
    }

    /** The longest pause between attempts of the node's background work while the database cannot be reached. */
    public Duration maxRetryBackoff() {
        return maxRetryBackoff;
    }

    /**
     * How long an outcome's commit (or a pick) may be held back so that the outcomes of other steps still running (or
     * slots about to free) join the same transaction (or pick); never applies when nothing else is running, so an idle
     * node pays no latency; {@code 0} turns it off.
     */
    public Duration batchWindow() {
        return batchWindow;
    }

    /**
     * Whether a step returning {@code next} runs the next step at once on the claim it already holds (its outcome still
     * commits first), instead of handing the row back to the queue; saves a pick per step of a chain.
     */
    public boolean inlineNextSteps() {
        return inlineNextSteps;
    }

    /**
     * Whether every committed transition of an instance is recorded in its history, in the transaction that commits
     * it (docs/DESIGN.md, "History"); on by default.
     */
    public boolean history() {
        return history;
    }

    /**
     * What becomes of an instance whose step cannot run without losing data: its stored state would lose properties
     * when read as its state type, or its upcast failed (docs/DESIGN.md, "Suspension"). Either way the step does not
     * run and the stored state is kept; {@link LossyState#SUSPEND} (the default) parks the instance until an operator
     * retries it, {@link LossyState#FAIL} fails it.
     */
    public LossyState lossyState() {
        return lossyState;
    }

    /**
     * How late a schedule's tick may be found and still count as on time; ticks found later were missed and follow
     * their schedule's {@link dev.durable.MissPolicy}. Longer than the poll interval (the sweep's longest pause).
     */
    public Duration scheduleMisfireThreshold() {
        return scheduleMisfireThreshold;
    }

    /** How long done instances are kept, with their signals, before the retention sweep deletes them; null: forever. */
    public @Nullable Duration retentionDone() {
        return retentionDone;
    }

    /** How long failed instances are kept before the retention sweep deletes them; null: forever. */
    public @Nullable Duration retentionFailed() {
        return retentionFailed;
    }

    /** How long cancelled instances are kept before the retention sweep deletes them; null: forever. */
    public @Nullable Duration retentionCancelled() {
        return retentionCancelled;
    }

    /** How often each node looks for ended instances past their retention. */
    public Duration retentionInterval() {
        return retentionInterval;
    }

    /** The most instances one retention statement deletes (a short transaction; the sweep repeats it). */
    public int retentionBatchSize() {
        return retentionBatchSize;
    }

    /**
     * What this node does at its start with the check of what is in flight against its code (docs/DESIGN.md, "The
     * deploy check"): nothing, warn about each group it cannot run, or pick from no queue until it can run them all.
     */
    public DeployCheck.Mode deployCheck() {
        return deployCheck;
    }

    /** The settings of {@code queue}, or {@code null} if this node is not configured for it. */
    public @Nullable QueueSettings queue(String queue) {
        return queues.get(queue);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof EngineSettings that
                && Objects.equals(nodeName, that.nodeName)
                && Objects.equals(schema, that.schema)
                && Objects.equals(leaseTtl, that.leaseTtl)
                && Objects.equals(heartbeatInterval, that.heartbeatInterval)
                && Objects.equals(pollInterval, that.pollInterval)
                && Objects.equals(idlePollInterval, that.idlePollInterval)
                && Objects.equals(reaperInterval, that.reaperInterval)
                && reaperBatchSize == that.reaperBatchSize
                && Objects.equals(shutdownGracePeriod, that.shutdownGracePeriod)
                && Objects.equals(queues, that.queues)
                && Objects.equals(stepTimeout, that.stepTimeout)
                && Objects.equals(zombieGracePeriod, that.zombieGracePeriod)
                && maxZombies == that.maxZombies
                && virtualThreads == that.virtualThreads
                && Objects.equals(outcomeRetryTimeout, that.outcomeRetryTimeout)
                && Objects.equals(maxRetryBackoff, that.maxRetryBackoff)
                && Objects.equals(batchWindow, that.batchWindow)
                && inlineNextSteps == that.inlineNextSteps
                && history == that.history
                && lossyState == that.lossyState
                && Objects.equals(scheduleMisfireThreshold, that.scheduleMisfireThreshold)
                && Objects.equals(retentionDone, that.retentionDone)
                && Objects.equals(retentionFailed, that.retentionFailed)
                && Objects.equals(retentionCancelled, that.retentionCancelled)
                && Objects.equals(retentionInterval, that.retentionInterval)
                && retentionBatchSize == that.retentionBatchSize
                && deployCheck == that.deployCheck;
    }

    @Override
    public int hashCode() {
        return Objects.hash(nodeName, schema, leaseTtl, heartbeatInterval, pollInterval, idlePollInterval,
                reaperInterval,
                reaperBatchSize, shutdownGracePeriod, queues, stepTimeout, zombieGracePeriod, maxZombies,
                virtualThreads, outcomeRetryTimeout, maxRetryBackoff, batchWindow, inlineNextSteps, history,
                lossyState, scheduleMisfireThreshold, retentionDone, retentionFailed, retentionCancelled,
                retentionInterval, retentionBatchSize, deployCheck);
    }

    @Override
    public String toString() {
        return "EngineSettings[nodeName=" + nodeName + ", schema=" + schema + ", leaseTtl=" + leaseTtl
                + ", heartbeatInterval=" + heartbeatInterval + ", pollInterval=" + pollInterval
                + ", idlePollInterval=" + idlePollInterval                + ", reaperInterval=" + reaperInterval + ", reaperBatchSize=" + reaperBatchSize
                + ", shutdownGracePeriod=" + shutdownGracePeriod + ", queues=" + queues + ", stepTimeout=" + stepTimeout
                + ", zombieGracePeriod=" + zombieGracePeriod + ", maxZombies=" + maxZombies
                + ", virtualThreads=" + virtualThreads + ", outcomeRetryTimeout=" + outcomeRetryTimeout
                + ", maxRetryBackoff=" + maxRetryBackoff + ", batchWindow=" + batchWindow
                + ", inlineNextSteps=" + inlineNextSteps + ", history=" + history + ", lossyState=" + lossyState
                + ", scheduleMisfireThreshold=" + scheduleMisfireThreshold + ", retentionDone=" + retentionDone
                + ", retentionFailed=" + retentionFailed + ", retentionCancelled=" + retentionCancelled
                + ", retentionInterval=" + retentionInterval
                + ", retentionBatchSize=" + retentionBatchSize + ", deployCheck=" + deployCheck + "]";
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
        private Duration leaseTtl = DEFAULT_LEASE_TTL;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration idlePollInterval = DEFAULT_IDLE_POLL_INTERVAL;
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
        private LossyState lossyState = DEFAULT_LOSSY_STATE;
        private Duration scheduleMisfireThreshold = DEFAULT_SCHEDULE_MISFIRE_THRESHOLD;
        private @Nullable Duration retentionDone;
        private @Nullable Duration retentionFailed;
        private @Nullable Duration retentionCancelled;
        private Duration retentionInterval = DEFAULT_RETENTION_INTERVAL;
        private int retentionBatchSize = DEFAULT_RETENTION_BATCH_SIZE;
        private DeployCheck.Mode deployCheck = DEFAULT_DEPLOY_CHECK;

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

        public Builder leaseTtl(Duration leaseTtl) {
            this.leaseTtl = leaseTtl;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder idlePollInterval(Duration idlePollInterval) {
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

        /** What becomes of an instance whose step cannot run without losing data (default suspend). */
        public Builder lossyState(LossyState lossyState) {
            this.lossyState = Objects.requireNonNull(lossyState, "lossyState must not be null");
            return this;
        }

        public Builder scheduleMisfireThreshold(Duration scheduleMisfireThreshold) {
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

        /**
         * Checks and builds the settings.
         *
         * @throws InvalidSettingException naming the first invalid setting
         */
        public EngineSettings build() {
            String node = nodeName == null ? defaultNodeName() : nodeName;
            if (!NODE_NAME.matcher(node).matches()) {
                throw new InvalidSettingException("nodeName", "'" + node
                        + "' must be 1 to 100 letters, digits, '.', '_' or '-'");
            }
            try {
                DurableSchema.named(Objects.requireNonNull(schema, "schema"));
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException("schema", e.getMessage());
            }
            positive("leaseTtl", leaseTtl);
            positive("heartbeatInterval", heartbeatInterval);
            positive("pollInterval", pollInterval);
            positive("idlePollInterval", idlePollInterval);
            if (idlePollInterval.compareTo(pollInterval) < 0) {
                throw new InvalidSettingException("idlePollInterval", idlePollInterval + " is shorter than pollInterval ("
                        + pollInterval + "): an idle node looks for work at most as often as a busy one");
            }
            positive("reaperInterval", reaperInterval);
            positive("zombieGracePeriod", zombieGracePeriod);
            positive("outcomeRetryTimeout", outcomeRetryTimeout);
            positive("maxRetryBackoff", maxRetryBackoff);
            positive("scheduleMisfireThreshold", scheduleMisfireThreshold);
            positive("retention.interval", retentionInterval);
            notNegative("retention.done", retentionDone == null ? Duration.ZERO : retentionDone);
            notNegative("retention.failed", retentionFailed == null ? Duration.ZERO : retentionFailed);
            notNegative("retention.cancelled", retentionCancelled == null ? Duration.ZERO : retentionCancelled);
            if (retentionBatchSize < 1) {
                throw new InvalidSettingException("retention.batchSize", "must be at least 1, was "
                        + retentionBatchSize);
            }
            notNegative("shutdownGracePeriod", shutdownGracePeriod);
            notNegative("batchWindow", batchWindow);
            if (stepTimeout != null) {
                positive("stepTimeout", stepTimeout);
            }
            if (heartbeatInterval.multipliedBy(3).compareTo(leaseTtl) > 0) {
                throw new InvalidSettingException("heartbeatInterval", heartbeatInterval
                        + " is more than a third of leaseTtl (" + leaseTtl
                        + "): a lease must survive two missed heartbeats (heartbeatInterval x 3 <= leaseTtl)");
            }
            if (scheduleMisfireThreshold.compareTo(idlePollInterval) <= 0) {
                throw new InvalidSettingException("scheduleMisfireThreshold", scheduleMisfireThreshold
                        + " is not longer than idlePollInterval (" + idlePollInterval + "): an idle node finds a due"
                        + " tick within one idle poll interval, so ticks it found on time would count as missed");
            }
            if (deployCheck == null) {
                throw new InvalidSettingException("deployCheck", "must be one of off, warn, fail");
            }
            if (reaperBatchSize < 1) {
                throw new InvalidSettingException("reaperBatchSize", "must be at least 1, was " + reaperBatchSize);
            }
            if (maxZombies < 0) {
                throw new InvalidSettingException("maxZombies", "must not be negative, was " + maxZombies);
            }
            queues.forEach((name, queue) -> {
                if (name == null || name.isBlank()) {
                    throw new InvalidSettingException("queues", "a queue name must not be blank");
                }
                if (queue.concurrency() < 0) {
                    throw new InvalidSettingException("queues." + name + ".concurrency",
                            "must not be negative, was " + queue.concurrency());
                }
                if (queue.batchSize() < 1) {
                    throw new InvalidSettingException("queues." + name + ".batchSize",
                            "must be at least 1, was " + queue.batchSize());
                }
            });
            return new EngineSettings(this, node);
        }

        private static void positive(String setting, @Nullable Duration value) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new InvalidSettingException(setting, "must be a positive duration, was " + value);
            }
        }

        private static void notNegative(String setting, @Nullable Duration value) {
            if (value == null || value.isNegative()) {
                throw new InvalidSettingException(setting, "must not be negative, was " + value);
            }
        }
    }

    /**
     * What becomes of an instance whose step cannot run without losing data (see {@link #lossyState()}). Either way
     * nothing of its stored state is written, and its reason names the machine, the version and the lost properties or
     * the upcaster's error.
     */
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
