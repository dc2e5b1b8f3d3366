package dev.durable.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.DurableListener;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.EngineStats;
import dev.durable.runtime.NodeState;
import dev.durable.runtime.QueueSettings;
import dev.durable.runtime.StepEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One chaos node: a JVM running {@link ChaosMachine} and its ticker (a schedule every second), the families
 * ({@link FamilyMachines}) and one version of the rolling deploy's machine ({@link DeployMachines}) on
 * {@link DurableEngine} directly (no Spring).
 *
 * <p>Arguments are {@code key=value}: {@code url}, {@code user}, {@code password}, {@code node} (the stable node
 * name), {@code schema}, {@code concurrency}, {@code leaseMs}, {@code heartbeatMs}, {@code pollMs},
 * {@code reaperMs}, {@code graceMs}, {@code outcomeRetryMs}, {@code minPauseMs}, {@code maxPauseMs},
 * {@code longStepPermille}, {@code longStepMs}, {@code inline} (run {@code next} steps inline on the claim),
 * {@code deployVersion} (which version of {@link DeployMachines} the node registers, 1 or 2, only that one: the
 * version of the code the node was deployed with; default 1), {@code deployCheck} ({@code off}, {@code warn} or
 * {@code fail}: what the node does with the deploy check at its start; default {@code warn}), {@code reportCommits}
 * ({@code true}: also print every outcome whose commit was acknowledged; the failover run compares them with what the
 * promoted server holds).
 *
 * <p>It prints one line per event the orchestrator counts and checks, then {@code READY}:
 * <ul>
 *   <li>{@code EVENT fenced|abandoned|discarded instance=<id> token=<t> step=<s> outcome=<o>}: an outcome that was
 *       not applied, with the claim it belonged to;</li>
 *   <li>{@code EVENT committed instance=<id> token=<t> step=<s>}: with {@code reportCommits=true}, an outcome whose
 *       commit was acknowledged;</li>
 *   <li>{@code EVENT reaped count=<n>}, {@code EVENT lease-lost instance=<id>}, {@code EVENT zombie instance=<id>},
 *       {@code EVENT suspended instance=<id> machine=<m> version=<v>},
 *       {@code EVENT state from=<s> to=<s> at=<epoch millis>} (when it happened: the orchestrator may read the line
 *       later);</li>
 *   <li>{@code STATS ...} when it stops.</li>
 *   <li>{@code READY node=<name> id=<node id> pid=<pid> deployVersion=<v> deployCheck=<passed|problems:n|none>
 *       held=<true|false>}: started, with the verdict of its deploy check at start (none: off, or the database did
 *       not answer) and whether it holds back for it.</li>
 * </ul>
 * On SIGTERM a shutdown hook stops the engine gracefully (drain, then release what did not finish). When its
 * standard input closes (the orchestrator died) it exits too, so no node outlives a run.
 */
public final class ChaosNode {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private ChaosNode() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> conf = parse(args);
        String node = conf.get("node");
        long pid = ProcessHandle.current().pid();
        int concurrency = Integer.parseInt(conf.getOrDefault("concurrency", "6"));
        HikariDataSource engineData = pool(conf, node + "-engine", 6);
        HikariDataSource effectData = pool(conf, node + "-effects", concurrency + 1);
        EffectLog effects = new EffectLog(effectData, node, pid);
        MachineDefinition machine = ChaosMachine.definition(effects, node + "/" + pid, new ChaosMachine.Pacing(
                Integer.parseInt(conf.getOrDefault("minPauseMs", "5")),
                Integer.parseInt(conf.getOrDefault("maxPauseMs", "25")),
                Integer.parseInt(conf.getOrDefault("longStepPermille", "0")),
                Integer.parseInt(conf.getOrDefault("longStepMs", "0"))));
        EngineSettings settings = EngineSettings.builder()
                .nodeName(node)
                .schema(conf.getOrDefault("schema", "durable"))
                .queues(Map.of(ChaosMachine.QUEUE, QueueSettings.concurrency(concurrency)))
                .leaseTtl(millis(conf, "leaseMs", 3000))
                .heartbeatInterval(millis(conf, "heartbeatMs", 1000))
                .pollInterval(millis(conf, "pollMs", 150))
                .reaperInterval(millis(conf, "reaperMs", 500))
                .shutdownGracePeriod(millis(conf, "graceMs", 2000))
                .outcomeRetryTimeout(millis(conf, "outcomeRetryMs", 5000))
                .maxRetryBackoff(millis(conf, "maxBackoffMs", 500))
                .zombieGracePeriod(Duration.ofSeconds(2))
                .inlineNextSteps(Boolean.parseBoolean(conf.getOrDefault("inline", "false")))
                .deployCheck(DeployCheck.Mode.valueOf(conf.getOrDefault("deployCheck", "warn").toUpperCase(
                        Locale.ROOT)))
                .build();
        int deployVersion = Integer.parseInt(conf.getOrDefault("deployVersion", "1"));
        DurableEngine engine = DurableEngine.builder(engineData, MachineRegistry.of(machine, ChaosMachine.ticker(),
                FamilyMachines.parent(), FamilyMachines.member(), DeployMachines.forVersion(deployVersion)))
                .settings(settings)
                .listener(new PrintingListener(Boolean.parseBoolean(conf.getOrDefault("reportCommits", "false"))))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.close();
            OUT.println("STATS " + describe(engine.stats()) + " zombies=" + engine.zombies());
            engineData.close();
            effectData.close();
        }, "chaos-node-stop"));
        engine.start();
        String check = engine.lastDeployCheck().map(c -> c.passed() ? "passed" : "problems:" + c.problems().size())
                .orElse("none");
        OUT.println("READY node=" + node + " id=" + engine.nodeId() + " pid=" + pid + " deployVersion="
                + deployVersion + " deployCheck=" + check + " held=" + engine.heldByDeployCheck());
        exitWhenStdinCloses();
    }

    /** Blocks until the orchestrator's end of standard input closes, then exits (running the shutdown hook). */
    private static void exitWhenStdinCloses() {
        InputStream in = System.in;
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // nothing is sent; reading only notices the end
            }
        } catch (IOException e) {
            // the pipe broke: the orchestrator is gone
        }
        OUT.println("ORPHANED: standard input closed; stopping");
        System.exit(3);
    }

    static String describe(EngineStats stats) {
        return "picked=" + stats.picked() + " applied=" + stats.outcomesCommitted() + " fenced="
                + stats.outcomesFenced() + " abandoned=" + stats.outcomesAbandoned() + " discarded="
                + stats.outcomesDiscarded() + " reaped=" + stats.reaped() + " released=" + stats.released()
                + " leasesLost=" + stats.leasesLost() + " componentFailures=" + stats.componentFailures()
                + " scheduledStarts=" + stats.scheduledStarts() + " scheduleMisfires=" + stats.scheduleMisfires();
    }

    private static HikariDataSource pool(Map<String, String> conf, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(conf.get("url"));
        config.setUsername(conf.getOrDefault("user", "postgres"));
        config.setPassword(conf.getOrDefault("password", ""));
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        // Fail fast while the database restarts: the engine degrades and retries with its own backoff.
        config.setConnectionTimeout(2000);
        config.setValidationTimeout(1000);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    private static Duration millis(Map<String, String> conf, String key, long fallback) {
        return Duration.ofMillis(Long.parseLong(conf.getOrDefault(key, Long.toString(fallback))));
    }

    /** {@code key=value} arguments as a map. */
    static Map<String, String> parseLoose(String[] args) {
        Map<String, String> conf = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("Expected key=value, got '" + arg + "'");
            }
            conf.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return conf;
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> conf = parseLoose(args);
        for (String required : new String[] {"url", "node"}) {
            if (!conf.containsKey(required)) {
                throw new IllegalArgumentException("Missing argument " + required + "=...");
            }
        }
        return conf;
    }

    /** Prints what the orchestrator counts; one short line each, flushed at once (a SIGKILL may follow). */
    private static final class PrintingListener implements DurableListener {

        private final boolean reportCommits;

        PrintingListener(boolean reportCommits) {
            this.reportCommits = reportCommits;
        }

        @Override
        public void stepFinished(StepEvent event) {
            if (event.fate() == StepEvent.Fate.COMMITTED && reportCommits) {
                OUT.println("EVENT committed instance=" + event.instanceId() + " token=" + event.leaseToken()
                        + " step=" + event.step());
            } else if (event.fate() != StepEvent.Fate.COMMITTED) {
                OUT.println("EVENT " + event.fate().label() + " instance=" + event.instanceId() + " token="
                        + event.leaseToken() + " step=" + event.step() + " outcome="
                        + (event.outcome() == null ? "none" : event.outcome().label()));
            }
        }

        @Override
        public void reaped(int count) {
            OUT.println("EVENT reaped count=" + count);
        }

        @Override
        public void leaseLost(long instanceId) {
            OUT.println("EVENT lease-lost instance=" + instanceId);
        }

        @Override
        public void zombieDetected(long instanceId, String machine, String step) {
            OUT.println("EVENT zombie instance=" + instanceId + " step=" + step);
        }

        @Override
        public void instanceSuspended(long instanceId, String machine, int version, String step, String reason) {
            OUT.println("EVENT suspended instance=" + instanceId + " machine=" + machine + " version=" + version
                    + " step=" + step + " reason=" + reason);
        }

        @Override
        public void stateChanged(NodeState from, NodeState to) {
            OUT.println("EVENT state from=" + from + " to=" + to + " at=" + System.currentTimeMillis());
        }
    }
}
