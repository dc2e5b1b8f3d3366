package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.QueueSummary;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What an operator and the metrics see of the queues: {@code summarize()} and {@code summarizeLive()}. */
class QueueSummaryTest {

    record Job(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final MachineDefinition orders = machine("orders");
    private final MachineDefinition archive = machine("archive");

    @Test
    void theLiveSummaryCountsEveryStatusButDoneAndCancelledAndLeavesOutQueuesWithNothingUnfinished() {
        DurableClient client = engines.clientOnly(orders, archive);
        long oldest = start(client, "orders", Duration.ZERO);
        start(client, "orders", Duration.ofHours(1)); // runnable, not yet eligible
        setStatus(start(client, "orders", Duration.ZERO), "executing", "lease_expires_at = now() - interval '1 s'");
        setStatus(start(client, "orders", Duration.ZERO), "executing", "lease_expires_at = now() + interval '1 h'");
        setStatus(start(client, "orders", Duration.ZERO), "awaiting_signal", "awaits = 'payment'");
        setStatus(start(client, "orders", Duration.ZERO), "failed", "last_error = 'boom'");
        // Suspended: a runnable row with a reason, waiting at 'infinity' (docs/DESIGN.md, "Suspension").
        setStatus(start(client, "orders", Duration.ZERO), "runnable",
                "suspension = 'lossy', eligible_at = 'infinity'");
        for (int i = 0; i < 3; i++) {
            setStatus(start(client, "orders", Duration.ZERO), "done", "result = '1'");
            setStatus(start(client, "archive", Duration.ZERO), "done", "result = '1'");
        }
        client.cancel(start(client, "orders", Duration.ZERO), "no longer needed");
        client.cancel(start(client, "archive", Duration.ZERO), "no longer needed");
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA
                + ".durable_instance SET eligible_at = now() - interval '90 seconds' WHERE id = ?", oldest);

        Map<String, QueueSummary> full = byQueue(client.summarize());
        Map<String, QueueSummary> live = byQueue(client.summarizeLive());

        assertThat(full.get("orders").counts()).containsExactlyInAnyOrderEntriesOf(Map.of(
                InstanceStatus.RUNNABLE, 2L, InstanceStatus.EXECUTING, 2L, InstanceStatus.AWAITING_SIGNAL, 1L,
                InstanceStatus.SUSPENDED, 1L, InstanceStatus.FAILED, 1L, InstanceStatus.DONE, 3L,
                InstanceStatus.CANCELLED, 1L));
        assertThat(live.get("orders").counts()).containsExactlyInAnyOrderEntriesOf(Map.of(
                InstanceStatus.RUNNABLE, 2L, InstanceStatus.EXECUTING, 2L, InstanceStatus.AWAITING_SIGNAL, 1L,
                InstanceStatus.SUSPENDED, 1L, InstanceStatus.FAILED, 1L));
        assertThat(client.count().get("orders")).containsEntry(InstanceStatus.SUSPENDED, 1L)
                .containsEntry(InstanceStatus.RUNNABLE, 2L);
        for (QueueSummary summary : List.of(full.get("orders"), live.get("orders"))) {
            assertThat(summary.expiredLeases()).isEqualTo(1);
            assertThat(summary.oldestRunnableAge()).isBetween(Duration.ofSeconds(89), Duration.ofSeconds(120));
        }
        assertThat(full.get("archive").count(InstanceStatus.DONE)).isEqualTo(3);
        assertThat(full.get("archive").count(InstanceStatus.CANCELLED)).isEqualTo(1);
        assertThat(live).doesNotContainKey("archive");
    }

    private static MachineDefinition machine(String queue) {
        return MachineDefinition.builder(queue + "-machine", 1, Job.class)
                .queue(queue)
                .step("work", (state, ctx) -> Outcome.done())
                .build();
    }

    private static long start(DurableClient client, String queue, Duration delay) {
        return client.start(queue + "-machine", new Job(1), StartOptions.defaults().delay(delay)).id();
    }

    /** Puts a row in a status the way the engine leaves it (this test runs no engine). */
    private static void setStatus(long id, String status, String more) {
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = '" + status
                + "', " + more + " WHERE id = ?", id);
    }

    private static Map<String, QueueSummary> byQueue(List<QueueSummary> summaries) {
        return summaries.stream().collect(Collectors.toMap(QueueSummary::queue, Function.identity()));
    }
}
