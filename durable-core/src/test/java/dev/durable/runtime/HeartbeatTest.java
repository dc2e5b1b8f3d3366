package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.control.StartRepository;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leases and heartbeats (docs/DESIGN.md, "Leases, heartbeat and reaper"). */
class HeartbeatTest {

    record Nothing() {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @Test
    void theHeartbeatKeepsAStepRunningThreeTimesLongerThanTheLeaseAlive() {
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("long-step", 1, Nothing.class)
                .step("crunch", (state, ctx) -> {
                    attempts.add(ctx.attempt());
                    Thread.sleep(4_750); // the work: over three leases (1.5 s each); the reaper runs every 500 ms
                    return Outcome.done();
                })
                .build();
        DurableEngine engine = engines.start("test-node", settings -> settings.leaseTtl(Duration.ofMillis(1500))
                .heartbeatInterval(Duration.ofMillis(500)), machine);
        long id = engine.client().start("long-step", new Nothing()).id();

        // The node counts the outcome after its commit, before it lets go of the claim: the wait is for both.
        await().atMost(Duration.ofSeconds(30)).until(() -> TestDatabase.status(id).equals("done")
                && engine.claims() == 0);

        assertThat(attempts).containsExactly(0);
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 0);
        assertThat(engine.stats().reaped()).isZero();
        assertThat(engine.stats().outcomesCommitted()).isEqualTo(1);
    }

    /**
     * Pitfall P4 (docs/DESIGN.md): the heartbeat (this node's claims) and reapers (expired claims) touch overlapping
     * sets of rows in different natural orders. Run flat out against each other on 200 claims, half of them expiring
     * every round, neither may ever hit a deadlock.
     */
    @Test
    void heartbeatsAndReapersRunningConcurrentlyNeverDeadlock() throws Exception {
        StatementPlanning planning = new StatementPlanning(TestDatabase.dataSource(),
                DurableSchema.named(TestDatabase.SCHEMA));
        ClaimRepository repository = new ClaimRepository(planning, History.off());
        new StartRepository(planning, "test-node", java.time.Duration.ofMinutes(1)).insert(IntStream.range(0, 200).mapToObj(i -> new NewInstance("m", 1, "s", "{}", "q", (short) 0,
                null, 0, null, "{runnable,executing,awaiting_signal}")).toList());
        AtomicReference<List<Claim>> claims = new AtomicReference<>(claimAll(repository));
        int rounds = 150;
        CyclicBarrier start = new CyclicBarrier(4);
        AtomicInteger reaped = new AtomicInteger();

        // Four threads of their own: the common pool may have a single worker on a small machine.
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int heartbeat = 0; heartbeat < 2; heartbeat++) {
            workers.add(CompletableFuture.runAsync(() -> {
                awaitQuietly(start);
                for (int i = 0; i < rounds; i++) {
                    repository.heartbeat(claims.get(), Duration.ofMinutes(1));
                }
            }, threads));
        }
        for (int reaper = 0; reaper < 2; reaper++) {
            int parity = reaper;
            workers.add(CompletableFuture.runAsync(() -> {
                awaitQuietly(start);
                for (int i = 0; i < rounds; i++) {
                    // Expires leases the way every multi-row statement of the engine takes rows: in id order,
                    // skipping locked ones (pitfall P4). A plain UPDATE locks them in whatever order its scan meets
                    // them and can deadlock with the heartbeat by itself, which is the test's own doing.
                    TestDatabase.jdbc().update("WITH due AS (SELECT id FROM " + TestDatabase.SCHEMA
                            + ".durable_instance WHERE status = 'executing' AND id % 2 = ? ORDER BY id"
                            + " FOR NO KEY UPDATE SKIP LOCKED)"
                            + " UPDATE " + TestDatabase.SCHEMA + ".durable_instance d"
                            + " SET lease_expires_at = now() - interval '1 second' FROM due WHERE d.id = due.id",
                            parity);
                    reaped.addAndGet(repository.reapExpired(1000).size());
                    List<Claim> repicked = claimAll(repository);
                    if (!repicked.isEmpty()) {
                        claims.updateAndGet(current -> merge(current, repicked));
                    }
                }
            }, threads));
        }
        try {
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }

        assertThat(reaped.get()).as("the reapers did reap while heartbeats ran").isGreaterThan(rounds);
    }

    private static List<Claim> claimAll(ClaimRepository repository) {
        return repository.pick("q", Map.of("m", List.of(1)), 500, "hb-node:1", Duration.ofMinutes(1)).stream()
                .map(ClaimedStep::claim).toList();
    }

    private static List<Claim> merge(List<Claim> current, List<Claim> repicked) {
        Map<Long, Claim> byId = new java.util.TreeMap<>();
        current.forEach(claim -> byId.put(claim.id(), claim));
        repicked.forEach(claim -> byId.put(claim.id(), claim));
        return List.copyOf(byId.values());
    }

    private static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
