package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.ClusterNode;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.Throughput;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's view of the whole cluster, as the dashboard's overview shows it (docs/DESIGN.md, "Dashboard"): the
 * nodes the heartbeat keeps, with their machines and silence, and the transitions all nodes wrote per minute,
 * counted from the history's ids.
 */
class ClusterTest {

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    record Tick(int n) {
    }

    private static MachineDefinition ticks() {
        return MachineDefinition.builder("tick", 1, Tick.class).initialStep("tick")
                .step("tick", (tick, ctx) -> Outcome.done("ticked"))
                .build();
    }

    @Test
    void theNodesAreListedWithTheirMachinesAndHowLongAgoTheirHeartbeatRenewedThem() {
        DurableEngine engine = engines.start(ticks());
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_node (id, started_at, seen_at)"
                + " VALUES ('gone:1', now() - interval '1 hour', now() - interval '10 minutes')");

        List<ClusterNode> nodes = engine.client().nodes();

        assertThat(nodes).extracting(ClusterNode::id).containsExactlyInAnyOrder(engine.nodeId(), "gone:1");
        ClusterNode self = nodes.stream().filter(node -> node.id().equals(engine.nodeId())).findFirst().orElseThrow();
        assertThat(self.machines()).isEqualTo(Map.of("tick", List.of(1)));
        assertThat(self.seenWithin(engine.settings().leaseTtl())).isTrue();
        assertThat(self.startedAt()).isBeforeOrEqualTo(self.seenAt());
        ClusterNode gone = nodes.stream().filter(node -> node.id().equals("gone:1")).findFirst().orElseThrow();
        assertThat(gone.machines()).isEmpty();
        assertThat(gone.silence()).isGreaterThanOrEqualTo(Duration.ofMinutes(10));
        assertThat(gone.seenWithin(engine.settings().leaseTtl())).isFalse();
    }

    @Test
    void theThroughputCountsTheTransitionsOfEachMinuteAllNodesWrote() {
        DurableClient client = engines.clientOnly(ticks());
        assertThat(client.throughput(Instant.now().minus(Duration.ofMinutes(5)))).isEmpty();
        OffsetDateTime now = TestDatabase.jdbc().queryForObject("SELECT date_trunc('minute', now())",
                OffsetDateTime.class);
        // In the order they were written: an hour ago (before the window), then three, two and four in three minutes.
        history(now.minusHours(1), 1);
        history(now.minusMinutes(4).plusSeconds(10), 3);
        history(now.minusMinutes(2).plusSeconds(5), 2);
        history(now, 4);

        List<Throughput> minutes = client.throughput(Instant.now().minus(Duration.ofMinutes(5)));

        Map<Instant, Long> expected = new HashMap<>(Map.of(now.minusMinutes(4).toInstant(), 3L,
                now.minusMinutes(2).toInstant(), 2L, now.toInstant(), 4L));
        assertThat(minutes).extracting(Throughput::minute).containsAll(expected.keySet());
        assertThat(minutes).allSatisfy(minute -> assertThat(minute.transitions()).as(minute.minute().toString())
                .isEqualTo(expected.getOrDefault(minute.minute(), 0L)));
        assertThat(minutes).extracting(Throughput::minute).isSorted();
    }

    @Test
    void theThroughputOfRealTransitionsIsInTheCurrentMinute() {
        DurableEngine engine = engines.start(ticks());
        long id = engine.client().start("tick", new Tick(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        List<Throughput> minutes = engine.client().throughput(Instant.now().minus(Duration.ofMinutes(1)));

        // One transition (done), in the minute it was written: this one or, across a minute's turn, the one before.
        assertThat(minutes.stream().mapToLong(Throughput::transitions).sum()).isEqualTo(1);
    }

    private static void history(OffsetDateTime at, int rows) {
        for (int row = 0; row < rows; row++) {
            TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_history"
                    + " (instance_id, step, event, status, attempt, at) VALUES (1, 'tick', 'done', 'done', 0, ?)", at);
        }
    }
}
