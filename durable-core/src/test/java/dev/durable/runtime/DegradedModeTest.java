package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.node.Reaper;
import dev.durable.runtime.queue.Committer;
import dev.durable.test.postgres.TcpProxy;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Degraded mode, the database down at startup or mid-run (docs/DESIGN.md, "Shutdown, degraded mode and
 * zombies"): the engine's connections go through a {@link TcpProxy} that can reset them all and refuse new ones. While
 * cut, the node reports DEGRADED and retries with backoff; once the database is reachable again it returns to RUNNING
 * by itself, without a restart, and finishes its work. A step result produced while the database was away is committed
 * after it returns (within the outcome retry timeout) or, past that, left whole to the reaper — never lost, never
 * half-applied.
 */
class DegradedModeTest {

    record Item(int n) {
    }

    /** One execution of a step, as the step saw it. */
    record Execution(long id, int attempt, long token, List<Long> awaitedSignals) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final TcpProxy proxy = TcpProxy.forJdbcUrl(TestPostgres.get().jdbcUrl());
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<Execution> executions = new CopyOnWriteArrayList<>();
    private final Recorder recorder = new Recorder();

    @AfterEach
    void closeProxyAndPools() {
        proxy.close();
        pools.forEach(HikariDataSource::close);
    }

    @Test
    void aCutMidRunDegradesTheNodeWhichRecoversByItselfWithoutLosingAStepResult() throws Exception {
        CountDownLatch running = new CountDownLatch(4);
        CountDownLatch gate = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("degraded", 1, Item.class)
                .step("work", (item, ctx) -> {
                    executions.add(new Execution(ctx.instanceId(), ctx.attempt(), ctx.leaseToken(), List.of()));
                    if (item.n() < 4) {
                        running.countDown();
                        gate.await();
                    }
                    return Outcome.done("item " + item.n() + " by claim " + ctx.leaseToken());
                })
                .build();
        DurableClient client = engines.clientOnly(machine);
        try (DurableEngine engine = engineThroughProxy(machine, settings -> settings
                .leaseTtl(Duration.ofSeconds(20)).outcomeRetryTimeout(Duration.ofSeconds(20)))) {
            engine.start();
            List<Long> ids = new ArrayList<>();
            for (int n = 0; n < 4; n++) {
                ids.add(client.start("degraded", new Item(n)).id());
            }
            assertThat(running.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

            proxy.cut();
            await().atMost(Duration.ofSeconds(5)).until(() -> engine.state() == NodeState.DEGRADED);
            assertThat(engine.databaseError()).isPresent();
            for (int n = 4; n < 8; n++) { // work that arrives while the node cannot see the database
                ids.add(client.start("degraded", new Item(n)).id());
            }
            gate.countDown(); // the four running steps finish; their outcomes cannot be written yet
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.failures(Committer.NAME) >= 2);
            for (long id : ids.subList(0, 4)) {
                assertThat(TestDatabase.row(id)).containsEntry("status", "executing").containsEntry("result", null);
            }

            proxy.restore();
            long restored = System.nanoTime();
            await().atMost(Duration.ofSeconds(5)).until(() -> engine.state() == NodeState.RUNNING);
            await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(this::isDone));
            Duration recovery = Duration.ofNanos(System.nanoTime() - restored);

            assertThat(recorder.transitions()).containsSubsequence(
                    NodeState.RUNNING + "->" + NodeState.DEGRADED, NodeState.DEGRADED + "->" + NodeState.RUNNING);
            // Every step ran exactly once and its own result, produced while the database was away, was committed.
            assertThat(executions).extracting(Execution::id).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(executions).allSatisfy(execution -> {
                assertThat(execution.attempt()).isZero();
                Map<String, Object> row = TestDatabase.row(execution.id());
                assertThat(((Number) row.get("lease_token")).longValue()).isEqualTo(execution.token());
                assertThat((String) row.get("result")).endsWith("by claim " + execution.token() + "\"");
            });
            EngineStats stats = engine.stats();
            assertThat(stats.outcomesCommitted()).isEqualTo(8);
            assertThat(stats.outcomesAbandoned()).isZero();
            assertThat(stats.outcomesFenced()).isZero();
            assertThat(stats.reaped()).isZero();
            assertThat(recovery).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void anOutageLongerThanTheOutcomeRetryTimeoutLeavesTheWholeOutcomeUnwrittenForTheReaper() throws Exception {
        CountDownLatch woken = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        MachineDefinition machine = MachineDefinition.builder("abandoned", 1, Item.class)
                .initialStep("wait")
                .step("wait", (item, ctx) -> {
                    if (ctx.awaited("go").isEmpty()) {
                        return Outcome.await("go", item);
                    }
                    executions.add(new Execution(ctx.instanceId(), ctx.attempt(), ctx.leaseToken(),
                            ctx.awaited().stream().map(dev.durable.Signal::id).toList()));
                    if (ctx.attempt() == 0) {
                        woken.countDown();
                        gate.await();
                    }
                    return Outcome.next("finish", new Item(item.n() + 1));
                })
                .step("finish", (item, ctx) -> Outcome.done(item.n()))
                .build();
        DurableClient client = engines.clientOnly(machine);
        try (DurableEngine engine = engineThroughProxy(machine, settings -> settings
                .outcomeRetryTimeout(Duration.ofSeconds(1)))) {
            engine.start();
            long id = client.start("abandoned", new Item(41)).id();
            await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
            client.signal(id, "go", Map.of("n", 1), "go-1");
            assertThat(woken.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            Map<String, Object> claimed = TestDatabase.row(id);

            proxy.cut();
            gate.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.stats().outcomesAbandoned() == 1);
            // Not a part of the abandoned `next` was written: same step, same claim, the signal still there.
            assertThat(TestDatabase.row(id)).containsEntry("status", "executing").containsEntry("step", "wait")
                    .containsEntry("lease_token", claimed.get("lease_token")).containsEntry("state", "{\"n\": 41}");
            assertThat(TestDatabase.signals(id)).hasSize(1);

            proxy.restore();
            await().atMost(Duration.ofSeconds(15)).until(() -> TestDatabase.status(id).equals("done"));
            assertThat(TestDatabase.row(id)).containsEntry("result", "42");
            assertThat(engine.stats().reaped()).isEqualTo(1);
            // The step ran again from scratch (attempt + 1, no error handler) and saw the same signal.
            assertThat(executions).extracting(Execution::attempt).containsExactly(0, 1);
            assertThat(executions.get(1).awaitedSignals()).isEqualTo(executions.get(0).awaitedSignals()).hasSize(1);
            assertThat(executions.get(1).token()).isGreaterThan(executions.get(0).token());
            // Every component that failed during the cut recovers at its own next run (a loop may sleep up to a
            // poll interval), not necessarily before the instance is done.
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.state() == NodeState.RUNNING);
        }
    }

    @Test
    void anEngineStartedWhileTheDatabaseIsDownIsDegradedRetriesWithBackoffAndRecoversWithoutRestart() {
        MachineDefinition machine = MachineDefinition.builder("late-database", 1, Item.class)
                .step("work", (item, ctx) -> {
                    executions.add(new Execution(ctx.instanceId(), ctx.attempt(), ctx.leaseToken(), List.of()));
                    return Outcome.done(item.n());
                })
                .build();
        DurableClient client = engines.clientOnly(machine);
        List<Long> ids = LongStream.range(0, 5).mapToObj(n -> client.start("late-database", new Item((int) n)).id())
                .toList();
        proxy.cut();
        try (DurableEngine engine = engineThroughProxy(machine, UnaryOperator.identity())) {
            engine.start();

            await().atMost(Duration.ofSeconds(5)).until(() -> engine.state() == NodeState.DEGRADED);
            assertThat(engine.databaseError()).isPresent();
            await().atMost(Duration.ofSeconds(15)).until(() -> recorder.failures(Reaper.NAME) >= 5);
            // Backoff: the pause between two failed runs doubles from 100 ms up to the cap (500 ms here).
            List<Long> at = recorder.failureTimes(Reaper.NAME);
            for (int k = 1; k < 5; k++) {
                long expectedPause = Math.min(100L << (k - 1), 500);
                assertThat(Duration.ofNanos(at.get(k) - at.get(k - 1)))
                        .as("pause before failure %d", k + 1)
                        .isGreaterThanOrEqualTo(Duration.ofMillis(expectedPause - 10));
            }
            assertThat(executions).isEmpty();

            proxy.restore();
            await().atMost(Duration.ofSeconds(5)).until(() -> engine.state() == NodeState.RUNNING);
            await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(this::isDone));
            assertThat(executions).extracting(Execution::id).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(executions).extracting(Execution::attempt).containsOnly(0);
            assertThat(recorder.transitions()).containsSubsequence(
                    NodeState.STARTING + "->" + NodeState.RUNNING, NodeState.RUNNING + "->" + NodeState.DEGRADED,
                    NodeState.DEGRADED + "->" + NodeState.RUNNING);
        }
    }

    private boolean isDone(long id) {
        return TestDatabase.status(id).equals("done");
    }

    /** An engine whose every connection goes through the proxy; the pool fails fast and starts even when cut. */
    private DurableEngine engineThroughProxy(MachineDefinition machine, UnaryOperator<EngineSettings.Builder> adjust) {
        TestPostgres postgres = TestPostgres.get();
        HikariConfig config = new HikariConfig();
        config.setPoolName("through-proxy");
        config.setJdbcUrl(proxy.jdbcUrl(postgres.jdbcUrl()));
        config.setUsername(postgres.username());
        config.setPassword(postgres.password());
        config.setMaximumPoolSize(6);
        config.setConnectionTimeout(250);
        config.setValidationTimeout(250);
        config.setInitializationFailTimeout(-1);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return DurableEngine.builder(pool, MachineRegistry.of(machine))
                .settings(adjust.apply(EngineFixture.fastSettings("degraded-node", machine)
                        .maxRetryBackoff(Duration.ofMillis(500))).build())
                .listener(recorder)
                .build();
    }

    /** Hears the node's state changes and its components' failures. */
    private static final class Recorder implements DurableListener {

        private final List<String> transitions = new CopyOnWriteArrayList<>();
        private final Map<String, List<Long>> failures = new ConcurrentHashMap<>();

        @Override
        public void stateChanged(NodeState from, NodeState to) {
            transitions.add(from + "->" + to);
        }

        @Override
        public void componentFailed(String component, Throwable error) {
            failures.computeIfAbsent(component, name -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
        }

        List<String> transitions() {
            return List.copyOf(transitions);
        }

        int failures(String component) {
            return failureTimes(component).size();
        }

        List<Long> failureTimes(String component) {
            return List.copyOf(failures.getOrDefault(component, List.of()));
        }
    }
}
