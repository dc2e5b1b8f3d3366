package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.DurableClient;
import dev.durable.InFlightReport;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.deploy.InFlightRepository;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is in flight (docs/DESIGN.md, "What is in flight"): unfinished instances by machine, version, step and status
 * with their counts, the shapes of their states and their pending signals, failed ones apart; what is counted exactly
 * and what is sampled.
 */
class InFlightTest {

    record Order(String reservation) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @TempDir
    Path directory;

    private final MachineDefinition order = MachineDefinition.builder("order", 1, Order.class)
            .step("pay", (state, ctx) -> Outcome.done())
            .build();

    @Test
    void unfinishedInstancesAreGroupedByMachineVersionStepAndStatusWithCountsShapesAndPendingSignals() {
        DurableClient client = engines.clientOnly(order);
        long first = insert("order", 1, "pay", "awaiting_signal",
                "{\"reservation\": \"R-1\", \"lines\": [{\"sku\": \"A\", \"qty\": 1}]}");
        long second = insert("order", 1, "pay", "awaiting_signal",
                "{\"reservation\": \"R-2\", \"lines\": [{\"sku\": \"B\", \"qty\": 3}, {\"sku\": \"C\", \"qty\": 1}]}");
        insert("order", 1, "pay", "awaiting_signal", "{\"reservation\": null, \"lines\": []}");
        insert("order", 1, "ship", "runnable", "{\"reservation\": \"R-4\"}");
        insert("order", 1, "ship", "runnable", "{\"reservation\": \"R-5\"}");
        insert("order", 2, "pay", "executing", "{\"reservationId\": \"R-6\", \"meta\": {\"rush\": true}}");
        insert("invoice", 1, "send", "runnable", null);
        insert("invoice", 1, "send", "executing", null);
        insert("order", 1, "ship", "failed", "{\"reservation\": \"R-7\"}");
        insert("order", 1, "pay", "done", "{\"reservation\": \"R-8\"}");
        insert("order", 1, "pay", "cancelled", "{\"reservation\": \"R-9\"}");
        signal(first, "payment", false);
        signal(second, "payment", false);
        signal(second, "note", false);
        signal(first, "payment-seen", true); // consumed: a dedup tombstone, not pending

        InFlightReport report = client.inFlight();

        assertThat(report.groups()).extracting(InFlightReport.Group::describe).containsExactly(
                "invoice v1 at step 'send' (runnable)",
                "invoice v1 at step 'send' (executing)",
                "order v1 at step 'pay' (awaiting_signal)",
                "order v1 at step 'ship' (runnable)",
                "order v2 at step 'pay' (executing)");
        InFlightReport.Group parked = report.groups().get(2);
        assertThat(parked.count()).isEqualTo(3);
        assertThat(parked.countExact()).isTrue();
        assertThat(parked.sampled()).isEqualTo(3);
        assertThat(parked.shapes()).containsExactly(
                new InFlightReport.Shape(List.of("$: object", "$.lines: array", "$.lines[]: object",
                        "$.lines[].qty: number", "$.lines[].sku: string", "$.reservation: string"), 2),
                new InFlightReport.Shape(List.of("$: object", "$.lines: array", "$.reservation: null"), 1));
        assertThat(parked.pendingSignals()).containsExactlyInAnyOrderEntriesOf(Map.of("payment", 2L, "note", 1L));
        assertThat(report.groups().get(3).count()).isEqualTo(2);
        assertThat(report.groups().get(3).pendingSignals()).isEmpty();
        assertThat(report.groups().get(4).shapes()).singleElement().extracting(InFlightReport.Shape::paths)
                .isEqualTo(List.of("$: object", "$.meta: object", "$.meta.rush: boolean", "$.reservationId: string"));
        // A state stored as SQL NULL (a machine without state) has a shape of its own, executing or not.
        for (InFlightReport.Group withoutState : report.groups().subList(0, 2)) {
            assertThat(withoutState.shapes()).singleElement().extracting(InFlightReport.Shape::paths)
                    .isEqualTo(List.of("$: null"));
        }
        assertThat(report.failed()).singleElement().satisfies(failed -> {
            assertThat(failed.describe()).isEqualTo("order v1 at step 'ship' (failed)");
            assertThat(failed.count()).isOne();
        });
        assertThat(report.signalsComplete()).isTrue();
        assertThat(report.sampleSize()).isEqualTo(InFlightRepository.SAMPLE_SIZE);
        assertThat(report.countLimit()).isEqualTo(InFlightRepository.COUNT_LIMIT);
    }

    @Test
    void aGroupOfTenThousandInstancesIsCountedUpToTheLimitAndReadOnlyThroughItsSample() {
        DurableClient client = engines.clientOnly(order);
        // The oldest and the newest rows have shapes of their own: a spread sample reaches both ends of the ids.
        insert("order", 1, "pay", "runnable", "{\"reservation\": \"oldest\", \"legacy\": 1}");
        insertMany(9_998, "{\"reservation\": \"R\"}");
        insert("order", 1, "pay", "runnable", "{\"reservation\": \"newest\", \"added\": true}");
        TestDatabase.jdbc().execute("ANALYZE " + TestDatabase.SCHEMA + ".durable_instance");

        InFlightReport.Group group = client.inFlight().groups().get(0);

        assertThat(group.count()).isEqualTo(InFlightRepository.COUNT_LIMIT);
        assertThat(group.countExact()).as("10,000 instances: more than the count limit").isFalse();
        assertThat(group.describeCount()).isEqualTo("at least " + InFlightRepository.COUNT_LIMIT);
        assertThat(group.sampled()).isEqualTo(InFlightRepository.SAMPLE_SIZE);
        assertThat(group.shapes()).extracting(InFlightReport.Shape::instances).containsExactly(48, 1, 1);
        assertThat(group.shapes()).extracting(shape -> shape.paths().get(1))
                .containsExactly("$.reservation: string", "$.added: boolean", "$.legacy: number");
    }

    @Test
    void aGroupAtTheCountLimitIsCountedExactly() {
        DurableClient client = engines.clientOnly(order);
        insertMany(InFlightRepository.COUNT_LIMIT, "{\"reservation\": \"R\"}");

        InFlightReport.Group group = client.inFlight().groups().get(0);

        assertThat(group.count()).isEqualTo(InFlightRepository.COUNT_LIMIT);
        assertThat(group.countExact()).isTrue();
        assertThat(group.describeCount()).isEqualTo(Integer.toString(InFlightRepository.COUNT_LIMIT));
    }

    @Test
    void pendingSignalsPastTheLimitAreCountedAsALowerBound() {
        DurableClient client = engines.clientOnly(order);
        long parked = insert("order", 1, "pay", "awaiting_signal", "{\"reservation\": \"R\"}");
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_signal (instance_id, name)"
                + " SELECT ?, 'payment' FROM generate_series(1, ?)", parked, InFlightRepository.SIGNAL_LIMIT + 5);

        InFlightReport report = client.inFlight();

        assertThat(report.signalsComplete()).isFalse();
        assertThat(report.groups().get(0).pendingSignals().get("payment"))
                .isBetween((long) InFlightRepository.SIGNAL_LIMIT, (long) InFlightRepository.SIGNAL_LIMIT + 1);
    }

    @Test
    void aReportReadFromTheDatabaseAndExportedReadsBackEqual() {
        DurableClient client = engines.clientOnly(order);
        long parked = insert("order", 1, "pay", "awaiting_signal", "{\"reservation\": \"R-1\", \"odd key\": [1]}");
        insert("order", 1, "pay", "failed", "{\"reservation\": \"R-2\"}");
        signal(parked, "payment", false);
        InFlightReport report = client.inFlight();
        Path file = directory.resolve("in-flight.json");

        report.write(file);

        assertThat(InFlightReport.read(file)).isEqualTo(report);
        // No stored value goes into the file: only shapes.
        assertThat(report.toJson()).doesNotContain("R-1").doesNotContain("R-2").contains("$['odd key']: array");
    }

    @Test
    void nothingInFlightIsAnEmptyReport() {
        InFlightReport report = engines.clientOnly(order).inFlight();

        assertThat(report.groups()).isEmpty();
        assertThat(report.failed()).isEmpty();
        assertThat(report.signalsComplete()).isTrue();
    }

    static long insert(String machine, int version, String step, String status, String state) {
        return TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, status, state, queue, lease_owner, lease_token, lease_expires_at)"
                + " VALUES (?, ?, ?, ?::" + TestDatabase.SCHEMA + ".durable_status, ?::jsonb, 'default',"
                + " CASE WHEN ? = 'executing' THEN 'node:1' END, CASE WHEN ? = 'executing' THEN 1 END,"
                + " CASE WHEN ? = 'executing' THEN now() + interval '1 minute' END) RETURNING id", Long.class,
                machine, version, step, status, state, status, status, status);
    }

    private static void insertMany(int n, String state) {
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, status, state, queue)"
                + " SELECT 'order', 1, 'pay', 'runnable', ?::jsonb, 'default' FROM generate_series(1, ?)", state, n);
    }

    static void signal(long instance, String name, boolean consumed) {
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_signal"
                + " (instance_id, name, dedup_key, consumed_at) VALUES (?, ?, ?, CASE WHEN ? THEN now() END)",
                instance, name, consumed ? "evt-" + name : null, consumed);
    }
}
