package dev.durable.runtime.support;

import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.InvalidSettingException;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The checks every {@code EngineSettings} passes when it is built, in one place: each names the setting it refuses,
 * as the settings and the starter's properties spell it ({@code InvalidSettingException}). The settings bound to each
 * other are resolved first ({@link Bound}): an unset one follows those that were set, and two set ones that conflict
 * are refused naming both.
 */
public final class SettingsChecks {

    private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    private SettingsChecks() {
    }

    /** @throws InvalidSettingException naming the first invalid setting of {@code settings} */
    public static void check(EngineSettings settings) {
        String node = settings.nodeName();
        if (!NODE_NAME.matcher(node).matches()) {
            throw new InvalidSettingException("nodeName", "'" + node
                    + "' must be 1 to 100 letters, digits, '.', '_' or '-'");
        }
        try {
            DurableSchema.named(Objects.requireNonNull(settings.schema(), "schema"));
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("schema", e.getMessage());
        }
        positive("leaseTtl", settings.leaseTtl());
        positive("heartbeatInterval", settings.heartbeatInterval());
        positive("pollInterval", settings.pollInterval());
        positive("idlePollInterval", settings.idlePollInterval());
        positive("reaperInterval", settings.reaperInterval());
        positive("zombieGracePeriod", settings.zombieGracePeriod());
        positive("outcomeRetryTimeout", settings.outcomeRetryTimeout());
        positive("maxRetryBackoff", settings.maxRetryBackoff());
        positive("scheduleMisfireThreshold", settings.scheduleMisfireThreshold());
        positive("retention.interval", settings.retentionInterval());
        notNegative("retention.done", orZero(settings.retentionDone()));
        notNegative("retention.failed", orZero(settings.retentionFailed()));
        notNegative("retention.cancelled", orZero(settings.retentionCancelled()));
        if (settings.retentionBatchSize() < 1) {
            throw new InvalidSettingException("retention.batchSize", "must be at least 1, was "
                    + settings.retentionBatchSize());
        }
        int patchMaxBytes = settings.historyPatchMaxBytes();
        if (patchMaxBytes != 0 && patchMaxBytes < EngineSettings.MIN_HISTORY_PATCH_MAX_BYTES) {
            throw new InvalidSettingException("history.patchMaxBytes", "must be 0 (no patches) or at least "
                    + EngineSettings.MIN_HISTORY_PATCH_MAX_BYTES + ", was " + settings.historyPatchMaxBytes());
        }
        notNegative("shutdownGracePeriod", settings.shutdownGracePeriod());
        notNegative("batchWindow", settings.batchWindow());
        if (settings.stepTimeout() != null) {
            positive("stepTimeout", settings.stepTimeout());
        }
        if (settings.retryPolicy() == null) {
            throw new InvalidSettingException("retryPolicy", "must not be null: RetryPolicy.none() retries nothing");
        }
        if (settings.deployCheck() == null) {
            throw new InvalidSettingException("deployCheck", "must be one of off, warn, fail");
        }
        if (settings.reaperBatchSize() < 1) {
            throw new InvalidSettingException("reaperBatchSize", "must be at least 1, was "
                    + settings.reaperBatchSize());
        }
        if (settings.maxZombies() < 0) {
            throw new InvalidSettingException("maxZombies", "must not be negative, was " + settings.maxZombies());
        }
        settings.queues().forEach((name, queue) -> {
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
            Integer limit = queue.limits().concurrency();
            if (limit != null && limit < 1) {
                throw new InvalidSettingException("queues." + name + ".clusterConcurrency",
                        "must be at least 1 (leave it unset for no limit), was " + limit);
            }
            ClusterLimits.Rate rate = queue.limits().rate();
            if (rate != null && (rate.starts() < 1 || rate.window().toMillis() < 1)) {
                throw new InvalidSettingException("queues." + name + ".clusterRate",
                        "must allow at least 1 start per window of at least 1 ms (leave it unset for no limit), was "
                                + rate.starts() + " per " + rate.window());
            }
        });
    }

    /**
     * The settings bound to each other, as set ({@code null}: unset) or resolved: three heartbeats fit in a lease,
     * and poll interval &le; idle poll interval &lt; schedule misfire threshold. {@link #resolved()} refuses two set values that conflict, naming
     * both, and gives each unset one the default, or the value the set ones need: what the setters of
     * {@code EngineSettings.Builder} and the starter's properties say.
     */
    public record Bound(@Nullable Duration leaseTtl, @Nullable Duration heartbeatInterval,
            @Nullable Duration pollInterval, @Nullable Duration idlePollInterval,
            @Nullable Duration scheduleMisfireThreshold) {

        /** @throws InvalidSettingException for a set value that is not positive, or two set values that conflict */
        public Bound resolved() {
            positiveIfSet("leaseTtl", leaseTtl);
            positiveIfSet("heartbeatInterval", heartbeatInterval);
            positiveIfSet("pollInterval", pollInterval);
            positiveIfSet("idlePollInterval", idlePollInterval);
            positiveIfSet("scheduleMisfireThreshold", scheduleMisfireThreshold);
            if (leaseTtl != null && heartbeatInterval != null
                    && heartbeatInterval.multipliedBy(3).compareTo(leaseTtl) > 0) {
                throw new InvalidSettingException("heartbeatInterval", heartbeatInterval
                        + " is more than a third of leaseTtl (" + leaseTtl
                        + "): a lease must survive two missed heartbeats (heartbeatInterval x 3 <= leaseTtl)");
            }
            if (pollInterval != null && idlePollInterval != null && idlePollInterval.compareTo(pollInterval) < 0) {
                throw new InvalidSettingException("idlePollInterval", idlePollInterval + " is shorter than"
                        + " pollInterval (" + pollInterval + "): an idle node looks for work at most as often as a"
                        + " busy one");
            }
            if (idlePollInterval != null && scheduleMisfireThreshold != null
                    && scheduleMisfireThreshold.compareTo(idlePollInterval) <= 0) {
                throw misfireNotLongerThan("idlePollInterval", idlePollInterval);
            }
            if (pollInterval != null && scheduleMisfireThreshold != null
                    && scheduleMisfireThreshold.compareTo(pollInterval) <= 0) {
                throw misfireNotLongerThan("pollInterval", pollInterval);
            }

            Duration lease = leaseTtl != null ? leaseTtl : max(EngineSettings.DEFAULT_LEASE_TTL,
                    heartbeatInterval == null ? Duration.ZERO : heartbeatInterval.multipliedBy(3));
            Duration heartbeat = heartbeatInterval != null ? heartbeatInterval
                    : min(EngineSettings.DEFAULT_HEARTBEAT_INTERVAL, lease.dividedBy(3));
            if (heartbeat.isZero()) {
                throw new InvalidSettingException("leaseTtl", lease + " is too short for a heartbeat interval of a"
                        + " third of it");
            }
            Duration idle = idlePollInterval;
            if (idle == null) {
                idle = pollInterval == null ? EngineSettings.DEFAULT_IDLE_POLL_INTERVAL
                        : max(EngineSettings.DEFAULT_IDLE_POLL_INTERVAL, pollInterval);
                if (scheduleMisfireThreshold != null && idle.compareTo(scheduleMisfireThreshold) >= 0) {
                    Duration half = scheduleMisfireThreshold.dividedBy(2);
                    idle = pollInterval == null ? half : max(half, pollInterval);
                }
                if (idle.isZero()) {
                    throw new InvalidSettingException("scheduleMisfireThreshold", scheduleMisfireThreshold
                            + " is too short for an idle poll interval shorter than it");
                }
            }
            Duration poll = pollInterval != null ? pollInterval : min(EngineSettings.DEFAULT_POLL_INTERVAL, idle);
            Duration misfire = scheduleMisfireThreshold != null ? scheduleMisfireThreshold
                    : EngineSettings.DEFAULT_SCHEDULE_MISFIRE_THRESHOLD.compareTo(idle) > 0
                            ? EngineSettings.DEFAULT_SCHEDULE_MISFIRE_THRESHOLD : idle.multipliedBy(2);
            return new Bound(lease, heartbeat, poll, idle, misfire);
        }

        private InvalidSettingException misfireNotLongerThan(String setting, Duration interval) {
            return new InvalidSettingException("scheduleMisfireThreshold", scheduleMisfireThreshold
                    + " is not longer than " + setting + " (" + interval + "): an idle node finds a due tick within"
                    + " one idle poll interval, so ticks it found on time would count as missed");
        }

        private static void positiveIfSet(String setting, @Nullable Duration value) {
            if (value != null) {
                positive(setting, value);
            }
        }

        private static Duration max(Duration a, Duration b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        private static Duration min(Duration a, Duration b) {
            return a.compareTo(b) <= 0 ? a : b;
        }
    }

    private static void positive(String setting, @Nullable Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new InvalidSettingException(setting, "must be a positive duration, was " + value);
        }
    }

    private static Duration orZero(@Nullable Duration value) {
        return value == null ? Duration.ZERO : value;
    }

    private static void notNegative(String setting, @Nullable Duration value) {
        if (value == null || value.isNegative()) {
            throw new InvalidSettingException(setting, "must not be negative, was " + value);
        }
    }
}
