package dev.durable.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import dev.durable.runtime.StepEvent;
import dev.durable.runtime.WakeUps;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One node of the benchmark's scaling scenario (n), in a JVM of its own: an engine at the queue's defaults (or the
 * concurrency its parent passes) running the one-step no-op machine {@code noop} on the parent's database and
 * schema. It talks to {@link NodeScaling} over its standard streams, one command per line, each answered with a line
 * that starts with {@value #PREFIX}:
 * <ul>
 * <li>(built) {@code ready};</li>
 * <li>{@code go}: starts the engine, answers {@code started};</li>
 * <li>{@code cpu}: answers {@code cpu <process CPU nanoseconds> <steps committed> <picks> <rows picked>
 * <outcome flushes> <most pool connections in use at once since the last cpu>} (sampled every millisecond);</li>
 * <li>{@code stop}: closes the engine, answers {@code stopped}, and exits.</li>
 * </ul>
 * Arguments: JDBC URL, user, password, schema, node name, concurrency, and the queue's cluster-wide concurrency
 * (docs/DESIGN.md, "Cluster-wide limits"; 0 for none).
 */
public final class ScalingNode {

    static final String PREFIX = "scaling-node: ";

    private ScalingNode() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String schema = args[3];
        String name = args[4];
        int concurrency = Integer.parseInt(args[5]);
        int clusterConcurrency = Integer.parseInt(args[6]);
        ClusterLimits limits = clusterConcurrency == 0 ? ClusterLimits.NONE
                : new ClusterLimits(clusterConcurrency, null);
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(url);
        pool.setUsername(args[1]);
        pool.setPassword(args[2]);
        pool.setPoolName(name);
        pool.setMaximumPoolSize(concurrency + 10);
        MachineDefinition noop = MachineDefinition.builder("noop", 1, Benchmark.Sample.class)
                .step("only", (state, ctx) -> Outcome.done())
                .build();
        AtomicLong committed = new AtomicLong();
        DurableListener counting = new DurableListener() {
            @Override
            public void stepFinished(StepEvent event) {
                if (event.fate() == StepEvent.Fate.COMMITTED) {
                    committed.incrementAndGet();
                }
            }
        };
        try (HikariDataSource dataSource = new HikariDataSource(pool)) {
            DurableEngine engine = DurableEngine.builder(dataSource, MachineRegistry.of(noop))
                    .settings(EngineSettings.builder()
                            .nodeName(name)
                            .schema(schema)
                            .wakeUps(WakeUps.LISTEN)
                            .virtualThreads(Runtime.version().feature() >= 21)
                            .queue("default", new QueueSettings(concurrency, QueueSettings.DEFAULT_BATCH_SIZE, limits))
                            .build())
                    .listener(counting)
                    .build();
            AtomicInteger mostInUse = new AtomicInteger();
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    mostInUse.accumulateAndGet(dataSource.getHikariPoolMXBean().getActiveConnections(), Math::max);
                    LockSupport.parkNanos(1_000_000);
                }
            }, "pool-sampler");
            sampler.setDaemon(true);
            sampler.start();
            answer("ready");
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command = commands.readLine(); command != null; command = commands.readLine()) {
                switch (command) {
                    case "go" -> {
                        engine.start();
                        answer("started");
                    }
                    case "cpu" -> {
                        var stats = engine.stats();
                        answer("cpu " + processCpuNanos() + " " + committed.get() + " " + stats.picks() + " "
                                + stats.picked() + " " + stats.outcomeFlushes() + " " + mostInUse.getAndSet(0));
                    }
                    case "stop" -> {
                        engine.close();
                        answer("stopped");
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown command '" + command + "'");
                }
            }
            engine.close(); // the parent went away
        }
    }

    private static void answer(String line) {
        System.out.println(PREFIX + line);
        System.out.flush();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
