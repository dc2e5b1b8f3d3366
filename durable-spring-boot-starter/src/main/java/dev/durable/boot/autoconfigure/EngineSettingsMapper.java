package dev.durable.boot.autoconfigure;

import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.InvalidSettingException;
import dev.durable.runtime.QueueSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Maps {@link DurableProperties} onto {@link EngineSettings}, in one place, and maps an
 * {@link InvalidSettingException} back onto the property it came from.
 */
final class EngineSettingsMapper {

    private static final Pattern SETTING_NAMES = Pattern.compile(
            "\\b(nodeName|schema|leaseTtl|heartbeatInterval|pollInterval|reaperInterval|reaperBatchSize"
                    + "|shutdownGracePeriod|stepTimeout|zombieGracePeriod|maxZombies|outcomeRetryTimeout"
                    + "|maxRetryBackoff|batchWindow)\\b");
    private static final Pattern CAMEL_HUMP = Pattern.compile("([a-z0-9])([A-Z])");

    private EngineSettingsMapper() {
    }

    /** A settings builder holding the properties; nothing is checked yet. */
    static EngineSettings.Builder toBuilder(DurableProperties properties, boolean virtualThreads) {
        EngineSettings.Builder settings = EngineSettings.builder()
                .nodeName(properties.getNodeName())
                .schema(properties.getSchema())
                .leaseTtl(properties.getLeaseTtl())
                .heartbeatInterval(properties.getHeartbeatInterval())
                .pollInterval(properties.getPollInterval())
                .reaperInterval(properties.getReaperInterval())
                .reaperBatchSize(properties.getReaperBatchSize())
                .shutdownGracePeriod(properties.getShutdownGracePeriod())
                .stepTimeout(properties.getStepTimeout())
                .zombieGracePeriod(properties.getZombieGracePeriod())
                .maxZombies(properties.getMaxZombies())
                .outcomeRetryTimeout(properties.getOutcomeRetryTimeout())
                .maxRetryBackoff(properties.getMaxRetryBackoff())
                .batchWindow(properties.getBatchWindow())
                .inlineNextSteps(properties.isInlineNextSteps())
                .virtualThreads(virtualThreads);
        properties.getQueues().forEach((name, queue) ->
                settings.queue(name, new QueueSettings(queue.getConcurrency(), queue.getBatchSize())));
        return settings;
    }

    /** {@code heartbeatInterval} → {@code durable.heartbeat-interval}; {@code queues.q.batchSize} → {@code durable.queues.q.batch-size}. */
    static String propertyName(String setting) {
        if (setting.startsWith("queues.")) {
            String rest = setting.substring("queues.".length());
            int dot = rest.lastIndexOf('.');
            if (dot > 0 && (rest.endsWith(".concurrency") || rest.endsWith(".batchSize"))) {
                return "durable.queues." + rest.substring(0, dot) + "." + kebab(rest.substring(dot + 1));
            }
            return "durable.queues." + rest;
        }
        return "durable." + kebab(setting);
    }

    /** The exception reporting {@code invalid} as a property, with the property's configured value. */
    static InvalidDurablePropertyException translate(InvalidSettingException invalid, DurableProperties properties) {
        String property = propertyName(invalid.setting());
        Matcher names = SETTING_NAMES.matcher(invalid.problem());
        StringBuilder problem = new StringBuilder();
        while (names.find()) {
            names.appendReplacement(problem, Matcher.quoteReplacement(propertyName(names.group(1))));
        }
        names.appendTail(problem);
        return new InvalidDurablePropertyException(property, valueOf(property, properties), problem.toString(),
                invalid);
    }

    private static @Nullable Object valueOf(String property, DurableProperties properties) {
        Map<String, @Nullable Object> values = new LinkedHashMap<>();
        values.put("durable.node-name", properties.getNodeName());
        values.put("durable.schema", properties.getSchema());
        values.put("durable.lease-ttl", properties.getLeaseTtl());
        values.put("durable.heartbeat-interval", properties.getHeartbeatInterval());
        values.put("durable.poll-interval", properties.getPollInterval());
        values.put("durable.reaper-interval", properties.getReaperInterval());
        values.put("durable.reaper-batch-size", properties.getReaperBatchSize());
        values.put("durable.shutdown-grace-period", properties.getShutdownGracePeriod());
        values.put("durable.step-timeout", properties.getStepTimeout());
        values.put("durable.zombie-grace-period", properties.getZombieGracePeriod());
        values.put("durable.max-zombies", properties.getMaxZombies());
        values.put("durable.outcome-retry-timeout", properties.getOutcomeRetryTimeout());
        values.put("durable.max-retry-backoff", properties.getMaxRetryBackoff());
        values.put("durable.batch-window", properties.getBatchWindow());
        values.put("durable.inline-next-steps", properties.isInlineNextSteps());
        properties.getQueues().forEach((name, queue) -> {
            values.put("durable.queues." + name + ".concurrency", queue.getConcurrency());
            values.put("durable.queues." + name + ".batch-size", queue.getBatchSize());
        });
        return values.get(property);
    }

    private static String kebab(String camel) {
        return CAMEL_HUMP.matcher(camel).replaceAll("$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
