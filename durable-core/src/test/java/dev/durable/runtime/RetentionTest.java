package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.control.Retention;
import dev.durable.runtime.control.RetentionRepository;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retention: ended instances older than their status's retention are deleted with their signals, oldest first, a
 * batch per statement; live instances and young ones are never touched; sweeps of several nodes never take the same
 * row; no retention, no deletion.
 */
class RetentionTest {

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final RetentionRepository retention = Repositories.onTestDatabase().retention();

    private static MachineDefinition noop() {
        return MachineDefinition.builder("noop", 1, Object.class).step("only", (state, ctx) -> Outcome.done()).build();
    }

    /** An instance of {@code status} last updated {@code ageMinutes} ago, with one signal; its id. */
    private static long instance(String status, int ageMinutes) {
        long id = TestDatabase.jdbc().queryForObject("""
                INSERT INTO durable_it.durable_instance (machine, machine_version, step, queue, status, updated_at)
                VALUES ('m', 1, 's', 'default', ?::durable_it.durable_status, now() - ? * interval '1 minute')
                RETURNING id
                """, Long.class, status, ageMinutes);
        TestDatabase.jdbc().update("INSERT INTO durable_it.durable_signal (instance_id, name, dedup_key)"
                + " VALUES (?, 'paid', 'evt')", id);
        return id;
    }

    private static List<Long> ids() {
        return TestDatabase.jdbc().queryForList("SELECT id FROM durable_it.durable_instance ORDER BY id", Long.class);
    }

    @Test
    void endedInstancesPastTheirRetentionAreDeletedWithTheirSignalsAndNothingElse() {
        long oldDone = instance("done", 120);
        long youngDone = instance("done", 10);
        long oldFailed = instance("failed", 120);
        long youngFailed = instance("failed", 30);
        long oldCancelled = instance("cancelled", 120);
        long youngCancelled = instance("cancelled", 5);
        List<Long> live = List.of(instance("runnable", 600), instance("executing", 600),
                instance("awaiting_signal", 600));

        assertThat(retention.deleteExpired(InstanceStatus.DONE, Duration.ofHours(1), 100)).isOne();
        assertThat(retention.deleteExpired(InstanceStatus.FAILED, Duration.ofDays(1), 100)).isZero();
        assertThat(retention.deleteExpired(InstanceStatus.FAILED, Duration.ofHours(1), 100)).isOne();
        assertThat(retention.deleteExpired(InstanceStatus.CANCELLED, Duration.ofHours(1), 100)).isOne();

        assertThat(ids()).doesNotContain(oldDone, oldFailed, oldCancelled)
                .contains(youngDone, youngFailed, youngCancelled).containsAll(live);
        assertThat(TestDatabase.jdbc().queryForList("SELECT instance_id FROM durable_it.durable_signal",
                Long.class)).doesNotContain(oldDone, oldFailed, oldCancelled).hasSize(6);
        assertThatThrownBy(() -> retention.deleteExpired(InstanceStatus.RUNNABLE, Duration.ofHours(1), 100))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theOldestGoFirstABatchAtATime() {
        long oldest = instance("done", 300);
        long older = instance("done", 200);
        long old = instance("done", 100);

        assertThat(retention.deleteExpired(InstanceStatus.DONE, Duration.ofMinutes(30), 2)).isEqualTo(2);
        assertThat(ids()).containsExactly(old);
        assertThat(List.of(oldest, older)).doesNotContainAnyElementsOf(ids());
    }

    /** A second node's sweep skips the rows the first one holds, rather than waiting for them or deleting them. */
    @Test
    void concurrentSweepsTakeDisjointBatches() throws Exception {
        long held = instance("done", 300);
        instance("done", 200);
        try (Connection otherNode = RowLocks.lockRow(TestDatabase.dataSource(), held)) {
            assertThat(retention.deleteExpired(InstanceStatus.DONE, Duration.ofMinutes(30), 10)).isOne();
            assertThat(ids()).containsExactly(held);
            try (PreparedStatement delete = otherNode.prepareStatement(
                    "DELETE FROM durable_it.durable_instance WHERE id = ?")) {
                delete.setLong(1, held);
                assertThat(delete.executeUpdate()).isOne();
            }
            otherNode.commit();
        }
        assertThat(ids()).isEmpty();
    }

    @Test
    void aNodeWithARetentionSweepsByItselfAndOneWithoutNeverDeletes() {
        long oldDone = instance("done", 120);
        long oldFailed = instance("failed", 120);
        long oldCancelled = instance("cancelled", 120);
        DurableEngine keeper = engines.start("keeper", settings -> settings, noop());
        assertThat(keeper.settings().retentionDone()).isNull();

        DurableEngine sweeper = engines.start("sweeper", settings -> settings.retentionDone(Duration.ofHours(1))
                .retentionFailed(Duration.ZERO).retentionCancelled(Duration.ofMinutes(1))
                .retentionInterval(Duration.ofMillis(200)), noop());
        // The node counts a sweep's deletes after its commit, which the rows' absence can show first.
        await().atMost(Duration.ofSeconds(10)).until(() -> !ids().contains(oldDone) && !ids().contains(oldCancelled)
                && sweeper.stats().retentionDeleted() >= 2);
        assertThat(ids()).as("failed instances are kept: their retention is zero").contains(oldFailed);
        assertThat(sweeper.stats().retentionDeleted()).isEqualTo(2);
        assertThat(keeper.stats().retentionDeleted()).isZero();
    }

    /**
     * While batches come back full the sweep pauses in proportion to the batch's time, not a whole interval, and not
     * zero: a backlog goes at a fifth of the sweep's time; once done, the interval.
     */
    @Test
    void aSweepDeletesABatchAtATimeAndPausesInProportionUntilTheBacklogIsGone() {
        for (int i = 0; i < 5; i++) {
            instance("done", 120);
        }
        Duration interval = Duration.ofMinutes(1);
        Retention sweep = new Retention(retention, new EngineEvents(DurableListener.NONE), Duration.ofHours(1),
                null, null, 2, interval);

        Duration first = sweep.sweep();
        assertThat(first).isPositive().isLessThan(interval);
        assertThat(ids()).hasSize(3);
        assertThat(sweep.sweep()).isLessThan(interval);
        assertThat(sweep.sweep()).as("the last batch was not full").isEqualTo(interval);
        assertThat(ids()).isEmpty();
    }

    @Test
    void aNegativeRetentionOrBatchIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> EngineSettings.builder().retentionDone(Duration.ofDays(-1)).build())
                .hasMessage("Invalid durable setting 'retention.done': must not be negative, was PT-24H");
        assertThatThrownBy(() -> EngineSettings.builder().retentionBatchSize(0).build())
                .hasMessage("Invalid durable setting 'retention.batchSize': must be at least 1, was 0");
        assertThatThrownBy(() -> EngineSettings.builder().retentionInterval(Duration.ZERO).build())
                .hasMessage("Invalid durable setting 'retention.interval': must be a positive duration, was PT0S");
    }
}
