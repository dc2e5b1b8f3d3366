package dev.durable.testing;

import dev.durable.DurableClient;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit extension that empties durable's tables before each test ({@link TestDatabase#empty()}) and stops every
 * engine a test built after it.
 * Engines get short timings so tests run fast:
 * lease 3 s, heartbeat 1 s, poll 200 ms, reaper 500 ms, shutdown grace 2 s.
 *
 * <pre>{@code
 * @RegisterExtension EngineFixture engines = new EngineFixture();
 * DurableEngine engine = engines.start(machine);
 * }</pre>
 */
public final class EngineFixture implements BeforeEachCallback, AfterEachCallback {

    /**
     * Steps run on virtual threads where the JVM has them (Java 21+), as under the starter with
     * {@code spring.threads.virtual.enabled}, and on the platform threads' pool on Java 17: CI runs the suite on both
     * (docs/COMPATIBILITY.md, "JDKs").
     */
    public static final boolean VIRTUAL_THREADS = Runtime.version().feature() >= 21;

    private final List<DurableEngine> engines = new ArrayList<>();

    /** The short test timings, with the default queue and the queues of the given machines configured. */
    public static EngineSettings.Builder fastSettings(String nodeName, MachineDefinition... machines) {
        EngineSettings.Builder settings = EngineSettings.builder()
                .nodeName(nodeName)
                .virtualThreads(VIRTUAL_THREADS)
                .schema(TestDatabase.SCHEMA)
                .leaseTtl(Duration.ofSeconds(3))
                .heartbeatInterval(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(200))
                .idlePollInterval(Duration.ofMillis(200))
                .reaperInterval(Duration.ofMillis(500))
                .shutdownGracePeriod(Duration.ofSeconds(2))
                .zombieGracePeriod(Duration.ofSeconds(1))
                .outcomeRetryTimeout(Duration.ofSeconds(5))
                .maxRetryBackoff(Duration.ofMillis(500));
        for (MachineDefinition machine : machines) {
            settings.queue(machine.queue(), QueueSettings.concurrency(10));
        }
        return settings;
    }

    /** Builds (does not start) an engine named {@code node} for these machines, with settings adjusted. */
    public DurableEngine build(String node, UnaryOperator<EngineSettings.Builder> adjust,
            MachineDefinition... machines) {
        DurableEngine engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(machines))
                .settings(adjust.apply(fastSettings(node, machines)).build())
                .build();
        engines.add(engine);
        return engine;
    }

    public DurableEngine start(String node, UnaryOperator<EngineSettings.Builder> adjust,
            MachineDefinition... machines) {
        DurableEngine engine = build(node, adjust, machines);
        engine.start();
        return engine;
    }

    public DurableEngine start(MachineDefinition... machines) {
        return start("test-node", UnaryOperator.identity(), machines);
    }

    /** A client on these machines without a running engine: starts and signals, nothing runs. */
    public DurableClient clientOnly(MachineDefinition... machines) {
        return build("client-only", UnaryOperator.identity(), machines).client();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        TestDatabase.empty();
    }

    /** Starts an engine a test built itself (with its own codec, say), and closes it after the test. */
    public DurableEngine start(DurableEngine engine) {
        engines.add(engine);
        engine.start();
        return engine;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        engines.forEach(DurableEngine::close);
        engines.clear();
    }
}
