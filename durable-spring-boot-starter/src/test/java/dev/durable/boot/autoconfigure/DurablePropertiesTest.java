package dev.durable.boot.autoconfigure;

import static dev.durable.boot.autoconfigure.AutoConfigurationRunner.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import dev.durable.runtime.WakeUps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code durable.*} properties: their defaults, their mapping onto the engine's settings, invalid values. */
class DurablePropertiesTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void propertyDefaultsAreTheEngineDefaults() {
        DurableProperties properties = bind(Map.of());
        EngineSettings mapped = EngineSettingsMapper.toBuilder(properties, false).nodeName("n").build();
        assertThat(mapped).isEqualTo(EngineSettings.builder().nodeName("n").build());
        assertThat(properties.isEnabled()).isTrue();
        assertThat(properties.isInitializeSchema()).isTrue();
        assertThat(properties.getNodeName()).isNull();
        assertThat(properties.getStepTimeout()).isNull();

        DurableProperties.Queue onlyConcurrency = bind(Map.of("durable.queues.mail.concurrency", "3"))
                .getQueues().get("mail");
        assertThat(onlyConcurrency.getBatchSize()).isEqualTo(QueueSettings.DEFAULT_BATCH_SIZE);
        DurableProperties.Queue onlyBatch = bind(Map.of("durable.queues.mail.batch-size", "7")).getQueues().get("mail");
        assertThat(onlyBatch.getConcurrency()).isEqualTo(QueueSettings.DEFAULT_CONCURRENCY);
    }

    @Test
    void theConfigurationMetadataDefaultsAreTheEngineDefaults() throws Exception {
        // What an IDE shows as the defaults, read from the metadata the build generates (with the hand-written
        // additions merged in: the Duration defaults, which the processor cannot read from the engine's constants):
        // configured explicitly, they must give exactly the engine's default settings.
        JsonNode metadata = metadata();
        Map<String, JsonNode> properties = new TreeMap<>();
        metadata.path("properties").forEach(property -> properties.put(property.path("name").asString(), property));

        // The default queue's entries and its key hint are written by hand: they name the engine's default queue.
        String defaultQueue = "durable.queues." + EngineSettings.DEFAULT_QUEUE;
        assertThat(properties).containsKeys(defaultQueue + ".concurrency", defaultQueue + ".batch-size");
        assertThat(metadata.path("hints").findValuesAsString("value")).contains(EngineSettings.DEFAULT_QUEUE);
        Map<String, String> defaults = new TreeMap<>();
        properties.forEach((name, property) -> {
            if (name.startsWith("durable.") && !property.path("defaultValue").isMissingNode()) {
                defaults.put(name, property.path("defaultValue").asString());
            }
        });
        // Every durable.* property shows its default, but those that have none to show: the host name, no
        // timeout, the map of queues (whose entries' defaults are those of 'default' above), the map of machines
        // (whose targets are none), the retentions (unset: kept forever), and the non-retryable types (none).
        assertThat(properties.keySet()).filteredOn(name -> name.startsWith("durable."))
                .filteredOn(name -> !defaults.containsKey(name))
                .containsExactlyInAnyOrder("durable.node-name", "durable.step-timeout", "durable.queues", "durable.machines",
                        "durable.retention.done", "durable.retention.failed", "durable.retention.cancelled",
                        "durable.retry.non-retryable");
        assertThat(properties.get("durable.queues").path("description").asString())
                .contains("concurrency (default " + QueueSettings.DEFAULT_CONCURRENCY + ")")
                .contains("batch-size (default " + QueueSettings.DEFAULT_BATCH_SIZE + ")");

        DurableProperties configured = bind(defaults);
        assertThat(EngineSettingsMapper.toBuilder(configured, false).nodeName("n").build())
                .isEqualTo(EngineSettings.builder().nodeName("n").build());
        DurableProperties unset = bind(Map.of());
        assertThat(configured.isEnabled()).isEqualTo(unset.isEnabled());
        assertThat(configured.isInitializeSchema()).isEqualTo(unset.isInitializeSchema());
        assertThat(configured.getMetrics().getQueueDepthRefreshInterval())
                .isEqualTo(unset.getMetrics().getQueueDepthRefreshInterval());
    }

    @Test
    void theReadmeShowsTheMetadataDefaults() throws Exception {
        // The starter README's "Configure" table is the other place a user reads the defaults.
        Map<String, String> shown = new TreeMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `(durable\\.[a-z.<>-]+)` \\| `([^`]+)` \\|")
                .matcher(Files.readString(Path.of("README.md")));
        while (row.find()) {
            shown.put(row.group(1).replace("<name>", EngineSettings.DEFAULT_QUEUE), row.group(2));
        }
        Map<String, String> defaults = new TreeMap<>();
        metadata().path("properties").forEach(property -> {
            if (property.path("name").asString().startsWith("durable.") && property.has("defaultValue")) {
                defaults.put(property.path("name").asString(), property.path("defaultValue").asString());
            }
        });
        assertThat(defaults).hasSizeGreaterThan(15);
        assertThat(shown).isEqualTo(defaults);
    }

    @Test
    void propertiesAreMappedOntoTheEngineSettings() {
        runner.withUserConfiguration(TestMachines.Mailer.class)
                .withPropertyValues("durable.lease-ttl=90s", "durable.heartbeat-interval=25s",
                        "durable.queues.mail.concurrency=3", "durable.queues.mail.batch-size=7",
                        "durable.step-timeout=5m", "durable.max-zombies=0", "durable.lossy-state=fail",
                        "durable.wake-ups=poll")
                .run(context -> {
                    EngineSettings settings = context.getBean(DurableEngine.class).settings();
                    assertThat(settings.leaseTtl()).isEqualTo(Duration.ofSeconds(90));
                    assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(25));
                    assertThat(settings.queue("mail")).isEqualTo(new QueueSettings(3, 7));
                    assertThat(settings.queue("default")).isEqualTo(QueueSettings.defaults());
                    assertThat(settings.stepTimeout()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(settings.maxZombies()).isZero();
                    assertThat(settings.lossyState()).isEqualTo(EngineSettings.LossyState.FAIL);
                    assertThat(settings.wakeUps()).isEqualTo(WakeUps.POLL);
                    assertThat(settings.nodeName()).isEqualTo("test-node");
                });
    }

    @Test
    void retentionAndHistoryPropertiesReachTheEngine() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.retention.done=7d", "durable.retention.failed=30d",
                        "durable.retention.cancelled=12h", "durable.retention.interval=5s",
                        "durable.retention.batch-size=50", "durable.history.enabled=false")
                .run(context -> {
                    EngineSettings settings = context.getBean(DurableEngine.class).settings();
                    assertThat(settings.retentionDone()).isEqualTo(Duration.ofDays(7));
                    assertThat(settings.retentionFailed()).isEqualTo(Duration.ofDays(30));
                    assertThat(settings.retentionCancelled()).isEqualTo(Duration.ofHours(12));
                    assertThat(settings.retentionInterval()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(settings.retentionBatchSize()).isEqualTo(50);
                    assertThat(settings.history()).isFalse();
                    // History off: an instance that ran records nothing (with history on, its done is recorded).
                    DurableClient durable = context.getBean(DurableClient.class);
                    long id = durable.start(TestMachines.Greeter.class, new TestMachines.Name("quiet")).id();
                    await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
                    assertThat(durable.history(id)).isEmpty();
                });
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .run(context -> {
                    EngineSettings settings = context.getBean(DurableEngine.class).settings();
                    assertThat(settings.retentionDone()).isNull();
                    assertThat(settings.history()).isTrue();
                    DurableClient durable = context.getBean(DurableClient.class);
                    long id = durable.start(TestMachines.Greeter.class, new TestMachines.Name("recorded")).id();
                    await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
                    assertThat(durable.history(id)).extracting(HistoryEntry::event)
                            .containsExactly(HistoryEntry.Event.DONE);
                });
    }

    @Test
    void aDoneRetentionDeletesDoneInstancesOnTheEnginesSweep() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.retention.done=1ms", "durable.retention.interval=200ms")
                .run(context -> {
                    DurableClient durable = context.getBean(DurableClient.class);
                    long id = durable.start(TestMachines.Greeter.class, new TestMachines.Name("brief")).id();
                    await().atMost(Duration.ofSeconds(20)).until(() -> durable.find(id).isEmpty());
                    assertThat(context.getBean(DurableEngine.class).stats().retentionDeleted()).isPositive();
                });
    }

    @Test
    void aNegativeRetentionFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.retention.cancelled=-1d")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.retention.cancelled' (value 'PT-24H')", "must not be negative"));
    }

    @Test
    void aRetentionOrHistoryThatIsNotOfItsTypeFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.retention.done=a week")
                .run(context -> assertStartupFailure(context, BindException.class,
                        "Failed to bind properties under 'durable.retention.done'"));
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.history.enabled=sometimes")
                .run(context -> assertStartupFailure(context, BindException.class,
                        "Failed to bind properties under 'durable.history.enabled'"));
    }

    @Test
    void heartbeatOfMoreThanAThirdOfTheLeaseFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.lease-ttl=30s", "durable.heartbeat-interval=20s")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.heartbeat-interval' (value 'PT20S')",
                        "more than a third of durable.lease-ttl"));
    }

    @Test
    void aPollIntervalAloneStartsAndTheUnsetIntervalsFollowIt() {
        AutoConfigurationRunner.createWithout("durable.poll-interval", "durable.idle-poll-interval")
                .withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.poll-interval=30s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    EngineSettings settings = context.getBean(DurableEngine.class).settings();
                    assertThat(settings.pollInterval()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(settings.idlePollInterval()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(settings.scheduleMisfireThreshold())
                            .isEqualTo(EngineSettings.DEFAULT_SCHEDULE_MISFIRE_THRESHOLD);
                });
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.lease-ttl=15s")
                .run(context -> assertThat(context.getBean(DurableEngine.class).settings().heartbeatInterval())
                        .isEqualTo(Duration.ofSeconds(5)));
    }

    @Test
    void twoConflictingValuesTheUserSetAreRefusedNamingBothProperties() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.poll-interval=30s", "durable.idle-poll-interval=1s")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.idle-poll-interval' (value 'PT1S')",
                        "shorter than durable.poll-interval (PT30S)"));
        AutoConfigurationRunner.createWithout("durable.poll-interval", "durable.idle-poll-interval")
                .withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.poll-interval=30s", "durable.schedule-misfire-threshold=20s")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.schedule-misfire-threshold' (value 'PT20S')",
                        "not longer than durable.poll-interval (PT30S)"));
    }

    @Test
    void negativeConcurrencyFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.concurrency=-1")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.default.concurrency' (value '-1')", "must not be negative"));
    }

    @Test
    void clusterWideLimitsAreBoundAndABadOneFailsStartupNamingItsProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.cluster-concurrency=5",
                        "durable.queues.default.cluster-rate=2000/1s")
                .run(context -> {
                    DurableEngine engine = context.getBean(DurableEngine.class);
                    assertThat(engine.settings().queue("default").limits()).isEqualTo(new ClusterLimits(5,
                            new ClusterLimits.Rate(2000, Duration.ofSeconds(1))));
                    assertThat(engine.queues().get("default").limits()).isNotNull();
                });
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .run(context -> assertThat(context.getBean(DurableEngine.class).settings().queue("default").limits())
                        .isEqualTo(ClusterLimits.NONE));
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.cluster-concurrency=0")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.default.cluster-concurrency' (value '0')", "must be at least 1"));
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.cluster-rate=lots")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.default.cluster-rate' (value 'lots')", "'lots' is not a rate"));
    }

    @Test
    void machineOnAnUnconfiguredQueueFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Mailer.class)
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.mail'", "machine mailer v1",
                        TestMachines.Mailer.class.getName(), "runs on queue 'mail', which is not configured"));
    }

    @Test
    void aTargetOfAMachineOrStepThisNodeDoesNotRunOrThatIsNotPositiveFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.machines.greetr.targets.time-at-step.greet=1h")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.machines.greetr.targets.time-at-step.greet' (value 'PT1H')",
                        "this node runs no machine 'greetr'; it runs [greeter]"));
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.machines.greeter.targets.time-at-step.wait=1h")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.machines.greeter.targets.time-at-step.wait'",
                        "no version of machine 'greeter' declares a step 'wait'; its steps are"));
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.targets.oldest-runnable-age=0s")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.queues.default.targets.oldest-runnable-age' (value 'PT0S')",
                        "The limit of a target must be positive, was PT0S"));
    }

    /** Without a target nothing checks: no thread, no statement, no meter of breaches, no health detail. */
    @Test
    void withoutATargetNothingIsChecked() {
        runner.withUserConfiguration(TestMachines.Greeter.class).run(context -> {
            dev.durable.boot.actuate.DurableTargets targets = context.getBean(
                    dev.durable.boot.actuate.DurableTargets.class);
            assertThat(targets.targets()).isEmpty();
            assertThat(targets.isRunning()).isFalse();
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .doesNotContain("durable-targets");
            assertThat(targets.last()).isEmpty();
        });
    }

    @Test
    void invalidSchemaNameFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.schema=Bad-Name")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.schema' (value 'Bad-Name')"));
    }

    @Test
    void failureAnalysisNamesThePropertyAndItsValue() {
        runner.withUserConfiguration(TestMachines.Greeter.class)
                .withPropertyValues("durable.queues.default.concurrency=-1")
                .run(context -> {
                    FailureAnalysis analysis = new InvalidDurablePropertyFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("Property: durable.queues.default.concurrency")
                            .contains("Value: -1").contains("must not be negative");
                    assertThat(analysis.getAction()).contains("durable.queues.default.concurrency");
                });
    }

    /** The metadata the build generates, with the hand-written additions merged in. */
    private static JsonNode metadata() {
        Path file = Path.of("target/classes/META-INF/spring-configuration-metadata.json");
        assertThat(file).as("the metadata the build generates").exists();
        return JsonMapper.builder().build().readTree(file.toFile());
    }

    private static DurableProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("durable", DurableProperties.class);
    }
}
