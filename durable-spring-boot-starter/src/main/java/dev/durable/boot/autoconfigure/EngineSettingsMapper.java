package dev.durable.boot.autoconfigure;

import dev.durable.Target;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.InvalidSettingException;
import dev.durable.runtime.QueueSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Maps {@link DurableProperties} onto {@link EngineSettings}, in one place, and maps an
 * {@link InvalidSettingException} back onto the property it came from.
 */
final class EngineSettingsMapper {

    /** One engine setting and the property it comes from: the single list the three mappings below use. */
    private record Mapping<T>(String setting, Function<DurableProperties, T> property,
            BiConsumer<EngineSettings.Builder, T> apply) {

        void applyTo(EngineSettings.Builder settings, DurableProperties properties) {
            apply.accept(settings, property.apply(properties));
        }
    }

    private static final List<Mapping<?>> MAPPINGS = List.of(
            new Mapping<>("nodeName", DurableProperties::getNodeName, EngineSettings.Builder::nodeName),
            new Mapping<>("schema", DurableProperties::getSchema, EngineSettings.Builder::schema),
            new Mapping<>("leaseTtl", DurableProperties::getLeaseTtl, EngineSettings.Builder::leaseTtl),
            new Mapping<>("heartbeatInterval", DurableProperties::getHeartbeatInterval,
                    EngineSettings.Builder::heartbeatInterval),
            new Mapping<>("pollInterval", DurableProperties::getPollInterval, EngineSettings.Builder::pollInterval),
            new Mapping<>("idlePollInterval", DurableProperties::getIdlePollInterval,
                    EngineSettings.Builder::idlePollInterval),
            new Mapping<>("reaperInterval", DurableProperties::getReaperInterval,
                    EngineSettings.Builder::reaperInterval),
            new Mapping<>("reaperBatchSize", DurableProperties::getReaperBatchSize,
                    EngineSettings.Builder::reaperBatchSize),
            new Mapping<>("shutdownGracePeriod", DurableProperties::getShutdownGracePeriod,
                    EngineSettings.Builder::shutdownGracePeriod),
            new Mapping<>("stepTimeout", DurableProperties::getStepTimeout, EngineSettings.Builder::stepTimeout),
            new Mapping<>("zombieGracePeriod", DurableProperties::getZombieGracePeriod,
                    EngineSettings.Builder::zombieGracePeriod),
            new Mapping<>("maxZombies", DurableProperties::getMaxZombies, EngineSettings.Builder::maxZombies),
            new Mapping<>("outcomeRetryTimeout", DurableProperties::getOutcomeRetryTimeout,
                    EngineSettings.Builder::outcomeRetryTimeout),
            new Mapping<>("maxRetryBackoff", DurableProperties::getMaxRetryBackoff,
                    EngineSettings.Builder::maxRetryBackoff),
            new Mapping<>("batchWindow", DurableProperties::getBatchWindow, EngineSettings.Builder::batchWindow),
            new Mapping<>("inlineNextSteps", DurableProperties::isInlineNextSteps,
                    EngineSettings.Builder::inlineNextSteps),
            new Mapping<>("scheduleMisfireThreshold", DurableProperties::getScheduleMisfireThreshold,
                    EngineSettings.Builder::scheduleMisfireThreshold),
            new Mapping<>("deployCheck", DurableProperties::getDeployCheck, EngineSettings.Builder::deployCheck),
            new Mapping<>("wakeUps", DurableProperties::getWakeUps, EngineSettings.Builder::wakeUps),
            new Mapping<>("history", properties -> properties.getHistory().isEnabled(),
                    EngineSettings.Builder::history),
            new Mapping<>("history.patchMaxBytes", properties -> properties.getHistory().getPatchMaxBytes(),
                    EngineSettings.Builder::historyPatchMaxBytes),
            new Mapping<>("lossyState", DurableProperties::getLossyState, EngineSettings.Builder::lossyState),
            new Mapping<>("retention.done", properties -> properties.getRetention().getDone(),
                    EngineSettings.Builder::retentionDone),
            new Mapping<>("retention.failed", properties -> properties.getRetention().getFailed(),
                    EngineSettings.Builder::retentionFailed),
            new Mapping<>("retention.cancelled", properties -> properties.getRetention().getCancelled(),
                    EngineSettings.Builder::retentionCancelled),
            new Mapping<>("retention.interval", properties -> properties.getRetention().getInterval(),
                    EngineSettings.Builder::retentionInterval),
            new Mapping<>("retention.batchSize", properties -> properties.getRetention().getBatchSize(),
                    EngineSettings.Builder::retentionBatchSize));

    /** The settings' names as the engine's messages write them, to be replaced by their properties' names. */
    private static final Pattern SETTING_NAMES = Pattern.compile(MAPPINGS.stream().map(Mapping::setting)
            .collect(Collectors.joining("|", "\\b(", ")\\b")));
    private static final Pattern CAMEL_HUMP = Pattern.compile("([a-z0-9])([A-Z])");

    private EngineSettingsMapper() {
    }

    /**
     * A settings builder holding the properties; nothing is checked yet but the retry policy, which checks itself.
     *
     * @throws InvalidSettingException naming the retry policy's invalid value as {@code retry.<name>}
     */
    static EngineSettings.Builder toBuilder(DurableProperties properties, boolean virtualThreads) {
        EngineSettings.Builder settings = EngineSettings.builder().virtualThreads(virtualThreads);
        MAPPINGS.forEach(mapping -> mapping.applyTo(settings, properties));
        settings.retryPolicy(retryPolicy(properties));
        properties.getQueues().forEach((name, queue) ->
                settings.queue(name, new QueueSettings(queue.getConcurrency(), queue.getBatchSize(), limits(name,
                        queue))));
        return settings;
    }

    /**
     * The queue's cluster-wide limits, from {@code cluster-concurrency} and {@code cluster-rate}.
     *
     * @throws InvalidSettingException naming a malformed rate as {@code queues.<name>.clusterRate}
     */
    private static ClusterLimits limits(String name, DurableProperties.Queue queue) {
        String rate = queue.getClusterRate();
        if (queue.getClusterConcurrency() == null && rate == null) {
            return ClusterLimits.NONE;
        }
        try {
            return new ClusterLimits(queue.getClusterConcurrency(),
                    rate == null ? null : ClusterLimits.Rate.parse(rate));
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("queues." + name + ".clusterRate", String.valueOf(e.getMessage()));
        }
    }

    /**
     * The engine's default retry policy, from {@code durable.retry.*}.
     *
     * @throws InvalidSettingException naming an invalid value as {@code retry.<name>} (e.g. {@code retry.maxDelay})
     */
    static RetryPolicy retryPolicy(DurableProperties properties) {
        DurableProperties.Retry retry = properties.getRetry();
        try {
            return RetryPolicy.builder().maxAttempts(retry.getMaxAttempts()).delay(retry.getDelay())
                    .multiplier(retry.getMultiplier()).maxDelay(retry.getMaxDelay()).jitter(retry.getJitter())
                    .nonRetryable(retry.getNonRetryable()).build();
        } catch (RetryPolicy.InvalidRetryPolicyException e) {
            throw new InvalidSettingException("retry." + e.setting(), e.problem());
        }
    }

    /**
     * The targets {@code durable.queues.<name>.targets.*} and {@code durable.machines.<name>.targets.*} set, queues
     * first, each in name order (docs/DESIGN.md, "Targets").
     *
     * @throws InvalidDurablePropertyException naming the property of a limit that is not positive, or of a machine
     *                                         this node does not run, or a step no version of it declares
     */
    static List<Target> targets(DurableProperties properties, MachineRegistry machines) {
        List<Target> targets = new ArrayList<>();
        properties.getQueues().forEach((name, queue) -> {
            Duration limit = queue.getTargets().getOldestRunnableAge();
            if (limit != null) {
                targets.add(target("durable.queues." + name + ".targets.oldest-runnable-age", limit,
                        () -> Target.oldestRunnableAge(name, limit)));
            }
        });
        properties.getMachines().forEach((name, machine) -> machine.getTargets().getTimeAtStep().forEach(
                (step, limit) -> {
                    String property = "durable.machines." + name + ".targets.time-at-step." + step;
                    List<MachineDefinition> versions = machines.all().stream()
                            .filter(definition -> definition.name().equals(name)).toList();
                    if (versions.isEmpty()) {
                        throw new InvalidDurablePropertyException(property, limit, "this node runs no machine '"
                                + name + "'; it runs " + machines.all().stream().map(MachineDefinition::name)
                                        .distinct().sorted().toList(), new IllegalArgumentException(name));
                    }
                    if (versions.stream().noneMatch(definition -> definition.steps().containsKey(step))) {
                        throw new InvalidDurablePropertyException(property, limit, "no version of machine '" + name
                                + "' declares a step '" + step + "'; its steps are " + versions.stream()
                                        .flatMap(definition -> definition.steps().keySet().stream()).distinct()
                                        .sorted().toList(), new IllegalArgumentException(step));
                    }
                    targets.add(target(property, limit, () -> Target.timeAtStep(name, step, limit)));
                }));
        return targets;
    }

    private static Target target(String property, Duration limit, Supplier<Target> target) {
        try {
            return target.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidDurablePropertyException(property, limit, String.valueOf(e.getMessage()), e);
        }
    }

    /** {@code heartbeatInterval} → {@code durable.heartbeat-interval}; {@code queues.q.batchSize} → {@code durable.queues.q.batch-size}. */
    static String propertyName(String setting) {
        if (setting.startsWith("queues.")) {
            String rest = setting.substring("queues.".length());
            int dot = rest.lastIndexOf('.');
            if (dot > 0 && (rest.endsWith(".concurrency") || rest.endsWith(".batchSize")
                    || rest.endsWith(".clusterConcurrency") || rest.endsWith(".clusterRate"))) {
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
        MAPPINGS.forEach(mapping -> values.put(propertyName(mapping.setting()), mapping.property().apply(properties)));
        properties.getQueues().forEach((name, queue) -> {
            values.put("durable.queues." + name + ".concurrency", queue.getConcurrency());
            values.put("durable.queues." + name + ".batch-size", queue.getBatchSize());
            values.put("durable.queues." + name + ".cluster-concurrency", queue.getClusterConcurrency());
            values.put("durable.queues." + name + ".cluster-rate", queue.getClusterRate());
        });
        DurableProperties.Retry retry = properties.getRetry();
        values.put("durable.retry.max-attempts", retry.getMaxAttempts());
        values.put("durable.retry.delay", retry.getDelay());
        values.put("durable.retry.multiplier", retry.getMultiplier());
        values.put("durable.retry.max-delay", retry.getMaxDelay());
        values.put("durable.retry.jitter", retry.getJitter());
        values.put("durable.retry.non-retryable", retry.getNonRetryable());
        return values.get(property);
    }

    private static String kebab(String camel) {
        return CAMEL_HUMP.matcher(camel).replaceAll("$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
