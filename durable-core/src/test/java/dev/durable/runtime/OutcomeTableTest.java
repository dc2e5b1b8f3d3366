package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every row of the outcome table (docs/DESIGN.md, "Outcomes"), asserted on the stored row once the outcome is
 * committed: status, step, attempt, eligible_at, awaits, result, last_error, lease cleared.
 */
class OutcomeTableTest {

    record Order(int id, String note) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final AtomicReference<DurableEngine> engine = new AtomicReference<>();

    /** A machine whose first step returns {@code outcome}; step "second" exists as a target for next. */
    private MachineDefinition machineReturning(Outcome outcome, boolean pauseQueueFirst) {
        return MachineDefinition.builder("outcomes", 1, Order.class)
                .initialStep("first")
                .step("first", (state, ctx) -> {
                    if (pauseQueueFirst) {
                        // Keep the row as the outcome left it: nothing picks it again until the test looks.
                        engine.get().pause("default");
                    }
                    return outcome;
                })
                .step("second", (state, ctx) -> Outcome.done())
                .build();
    }

    private long runFirstStep(Outcome outcome, boolean pauseQueueFirst, String expectedStatus) {
        MachineDefinition machine = machineReturning(outcome, pauseQueueFirst);
        engine.set(engines.start(machine));
        long id = engine.get().client().start("outcomes", new Order(7, "start")).id();
        // The started row is runnable and unleased already: the wait is for the first step's outcome, committed.
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.get().stats().outcomesCommitted() >= 1
                && TestDatabase.status(id).equals(expectedStatus) && TestDatabase.row(id).get("lease_owner") == null);
        return id;
    }

    @Test
    void nextMakesTheNamedStepRunnableNowWithAttemptZeroAndTheNewState() {
        long id = runFirstStep(Outcome.next("second", new Order(7, "after next")), true, "runnable");

        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("step")).isEqualTo("second");
        assertThat(row.get("attempt")).isEqualTo(0);
        assertThat((double) ((Number) row.get("eligible_in_seconds")).doubleValue()).isLessThanOrEqualTo(0.0);
        assertThat(row.get("state")).isEqualTo("{\"id\": 7, \"note\": \"after next\"}");
        assertThat(row.get("awaits")).isNull();
        assertThat(row.get("result")).isNull();
        assertThat(row.get("last_error")).isNull();
        assertLeaseCleared(row);
    }

    @Test
    void retryKeepsTheStepAddsOneAttemptAndDelaysEligibility() {
        long id = runFirstStep(Outcome.retry(new Order(7, "retrying"), Duration.ofHours(1)), false, "runnable");

        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("step")).isEqualTo("first");
        assertThat(row.get("attempt")).isEqualTo(1);
        // eligible_at = the database's now() at the write + 1 hour
        assertThat(((Number) row.get("eligible_in_seconds")).doubleValue()).isBetween(3590.0, 3600.0);
        assertThat(row.get("state")).isEqualTo("{\"id\": 7, \"note\": \"retrying\"}");
        assertThat(row.get("last_error")).isNull();
        assertLeaseCleared(row);
    }

    @Test
    void awaitParksOnTheSignalNameWithTheSameStepAndAttempt() {
        long id = runFirstStep(Outcome.await("payment", new Order(7, "waiting")), false, "awaiting_signal");

        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("step")).isEqualTo("first");
        assertThat(row.get("attempt")).isEqualTo(0);
        assertThat(row.get("awaits")).isEqualTo("payment");
        assertThat(row.get("state")).isEqualTo("{\"id\": 7, \"note\": \"waiting\"}");
        assertThat(row.get("result")).isNull();
        assertLeaseCleared(row);
    }

    @Test
    void doneRecordsTheResultAsJsonAndKeepsStepAndState() {
        long id = runFirstStep(Outcome.done(Map.of("shipped", true)), false, "done");

        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("result")).isEqualTo("{\"shipped\": true}");
        assertThat(row.get("step")).isEqualTo("first");
        assertThat(row.get("attempt")).isEqualTo(0);
        assertThat(row.get("state")).isEqualTo("{\"id\": 7, \"note\": \"start\"}");
        assertThat(row.get("awaits")).isNull();
        assertThat(row.get("last_error")).isNull();
        assertLeaseCleared(row);
    }

    @Test
    void stopFailsTheInstanceWithTheReason() {
        long id = runFirstStep(Outcome.stop("customer cancelled"), false, "failed");

        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("last_error")).isEqualTo("customer cancelled");
        assertThat(row.get("result")).isNull();
        assertThat(row.get("step")).isEqualTo("first");
        assertThat(row.get("attempt")).isEqualTo(0);
        assertLeaseCleared(row);
    }

    private static void assertLeaseCleared(Map<String, Object> row) {
        assertThat(row.get("lease_owner")).isNull();
        assertThat(row.get("lease_expires_at")).isNull();
    }
}
