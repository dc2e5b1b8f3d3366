package dev.durable.runtime.support;

import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.InvalidSettingException;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The checks every {@code EngineSettings} passes when it is built, in one place: each names the setting it refuses,
 * as the settings and the starter's properties spell it ({@code InvalidSettingException}).
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
        if (settings.idlePollInterval().compareTo(settings.pollInterval()) < 0) {
            throw new InvalidSettingException("idlePollInterval", settings.idlePollInterval()
                    + " is shorter than pollInterval (" + settings.pollInterval()
                    + "): an idle node looks for work at most as often as a busy one");
        }
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
        notNegative("shutdownGracePeriod", settings.shutdownGracePeriod());
        notNegative("batchWindow", settings.batchWindow());
        if (settings.stepTimeout() != null) {
            positive("stepTimeout", settings.stepTimeout());
        }
        if (settings.heartbeatInterval().multipliedBy(3).compareTo(settings.leaseTtl()) > 0) {
            throw new InvalidSettingException("heartbeatInterval", settings.heartbeatInterval()
                    + " is more than a third of leaseTtl (" + settings.leaseTtl()
                    + "): a lease must survive two missed heartbeats (heartbeatInterval x 3 <= leaseTtl)");
        }
        if (settings.scheduleMisfireThreshold().compareTo(settings.idlePollInterval()) <= 0) {
            throw new InvalidSettingException("scheduleMisfireThreshold", settings.scheduleMisfireThreshold()
                    + " is not longer than idlePollInterval (" + settings.idlePollInterval()
                    + "): an idle node finds a due tick within one idle poll interval, so ticks it found on time would"
                    + " count as missed");
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
        });
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
