package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.jdbc.DurableSchema;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Partition keys (docs/DESIGN.md, "Partition keys"): instances sharing a key never execute at once, on any node;
 * different keys run in parallel; a dead claim's key frees after the reap; a hot key does not hold up the others.
 */
class PartitionKeyTest {

    record Unit(int n) {
    }

    /** When one step ran, by the JVM clock (one JVM, so the intervals are comparable). */
    record Interval(long instanceId, long startNanos, long endNanos) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final JdbcTemplate jdbc = TestDatabase.jdbc();
    private final List<Interval> intervals = new CopyOnWriteArrayList<>();

    @Test
    void instancesSharingAKeyNeverOverlapSoReadSleepWriteIncrementsLoseNothing() {
        jdbc.update("INSERT INTO durable_it.test_counter VALUES ('shared', 0)");
        MachineDefinition machine = MachineDefinition.builder("incrementer", 1, Unit.class)
                .step("increment", (state, ctx) -> {
                    long start = System.nanoTime();
                    int value = jdbc.queryForObject("SELECT value FROM durable_it.test_counter WHERE name = 'shared'",
                            Integer.class);
                    Thread.sleep(20); // the work: widens the window a concurrent increment would need
                    jdbc.update("UPDATE durable_it.test_counter SET value = ? WHERE name = 'shared'", value + 1);
                    intervals.add(new Interval(ctx.instanceId(), start, System.nanoTime()));
                    return Outcome.done();
                })
                .build();
        DurableClient client = engines.start(machine).client(); // concurrency 10
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(client.start("incrementer", new Unit(i), StartOptions.defaults().partitionKey("customer:1")).id());
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> intervals.size() == 20);
        assertThat(jdbc.queryForObject("SELECT value FROM durable_it.test_counter WHERE name = 'shared'",
                Integer.class)).isEqualTo(20);
        List<Interval> byStart = intervals.stream().sorted(Comparator.comparingLong(Interval::startNanos)).toList();
        for (int i = 1; i < byStart.size(); i++) {
            assertThat(byStart.get(i).startNanos()).as("step %d starts after step %d ended", i, i - 1)
                    .isGreaterThanOrEqualTo(byStart.get(i - 1).endNanos());
        }
        // Within a key, instances run in pick order: same priority, so by eligibility, i.e. start order.
        assertThat(byStart.stream().map(Interval::instanceId).toList()).isEqualTo(ids);
    }

    @Test
    void instancesWithDifferentKeysRunAtTheSameTime() {
        CyclicBarrier bothRunning = new CyclicBarrier(2);
        MachineDefinition machine = MachineDefinition.builder("meeting", 1, Unit.class)
                .step("meet", (state, ctx) -> {
                    bothRunning.await(10, TimeUnit.SECONDS); // times out unless the other key runs meanwhile
                    return Outcome.done();
                })
                .build();
        DurableClient client = engines.start(machine).client();
        long a = client.start("meeting", new Unit(1), StartOptions.defaults().partitionKey("customer:a")).id();
        long b = client.start("meeting", new Unit(2), StartOptions.defaults().partitionKey("customer:b")).id();

        await().atMost(Duration.ofSeconds(15)).until(() -> TestDatabase.status(a).equals("done")
                && TestDatabase.status(b).equals("done"));
    }

    @Test
    void aKeyHeldByADeadNodesClaimFreesWhenTheClaimIsReaped() {
        List<Long> runOrder = new CopyOnWriteArrayList<>();
        MachineDefinition machine = MachineDefinition.builder("keyed", 1, Unit.class)
                .step("run", (state, ctx) -> {
                    runOrder.add(ctx.instanceId());
                    return Outcome.done();
                })
                .build();
        DurableClient client = engines.clientOnly(machine);
        long first = client.start("keyed", new Unit(1), StartOptions.defaults().partitionKey("k")).id();
        // A node claims it and dies: nothing will ever heartbeat or finish this claim.
        ClaimRepository repository = new ClaimRepository(new StatementPlanning(TestDatabase.dataSource(),
                DurableSchema.named(TestDatabase.SCHEMA)), History.off());
        assertThat(repository.pick("default", Map.of("keyed", List.of(1)), 10, "dead-node:1", Duration.ofSeconds(2)))
                .hasSize(1);
        long second = client.start("keyed", new Unit(2), StartOptions.defaults().partitionKey("k")).id();

        DurableEngine engine = engines.start(machine);
        await().atMost(Duration.ofSeconds(15)).until(() -> TestDatabase.status(first).equals("done")
                && TestDatabase.status(second).equals("done"));

        // The second could not run while the dead claim held the key; once it was reaped, the first (older, its place
        // in pick order kept) ran again, then the second.
        assertThat(engine.stats().reaped()).isEqualTo(1);
        assertThat(runOrder).containsExactly(first, second);
        assertThat(TestDatabase.row(first)).containsEntry("attempt", 1);
        assertThat(TestDatabase.row(second)).containsEntry("attempt", 0);
    }

    @Test
    void aHotKeyWithABacklogOfAThousandDoesNotDelayOtherKeys() {
        MachineDefinition machine = MachineDefinition.builder("hot", 1, Unit.class)
                .step("run", (state, ctx) -> {
                    if ("hot".equals(ctx.partitionKey())) {
                        Thread.sleep(10);
                    }
                    return Outcome.done();
                })
                .build();
        DurableClient client = engines.clientOnly(machine);
        client.startAll("hot", IntStream.range(0, 1000)
                .mapToObj(i -> StartRequest.of(new Unit(i), StartOptions.defaults().partitionKey("hot"))).toList());
        List<Long> others = client.startAll("hot", IntStream.range(0, 50)
                        .mapToObj(i -> StartRequest.of(new Unit(i), StartOptions.defaults().partitionKey("other:" + i))).toList())
                .stream().map(result -> result.id()).toList();

        engines.start(machine);

        // The 1,000 hot instances need at least 10 s one after another; the others must not wait for them.
        await().atMost(Duration.ofSeconds(5)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM durable_it.durable_instance WHERE status = 'done' AND id = ANY (?)",
                Long.class, (Object) others.toArray(Long[]::new)) == 50);
        long hotDone = jdbc.queryForObject("SELECT count(*) FROM durable_it.durable_instance WHERE status = 'done'"
                + " AND partition_key = 'hot'", Long.class);
        assertThat(hotDone).as("hot instances done when all others were").isLessThan(500);
    }
}
