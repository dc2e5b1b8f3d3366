package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.RetryResult;
import dev.durable.StartResult;
import dev.durable.TransitionCount;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The history of an instance (docs/DESIGN.md, "History"): every committed transition is recorded in the transaction
 * that commits it, with its step, event, attempt, node, claim token, time, duration, error and consumed signals; a
 * fenced outcome is not; history is deleted with its instance by retention; it can be switched off.
 */
class HistoryTest {

    record Parcel(int tries) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** weigh (retried once) -> label (awaits "paid") -> ship -> done; "lost" parcels stop at ship. */
    private static MachineDefinition parcels() {
        return MachineDefinition.builder("parcel", 1, Parcel.class)
                .initialStep("weigh")
                .step("weigh", (parcel, ctx) -> ctx.attempt() == 0
                        ? Outcome.retry(parcel, Duration.ZERO) : Outcome.next("label", parcel))
                .step("label", (parcel, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.next("ship", parcel)
                        : Outcome.await("paid", parcel))
                .step("ship", (parcel, ctx) -> parcel.tries() > 5 ? Outcome.stop("lost") : Outcome.done("shipped"))
                .build();
    }

    @Test
    void everyCommittedTransitionIsRecordedInOrderWithItsRun() {
        DurableEngine engine = engines.start(parcels());
        DurableClient client = engine.client();
        long id = client.start("parcel", new Parcel(0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.signal(id, "paid", 12, "evt-1").orThrow();
        long signal = (Long) TestDatabase.signals(id).get(0).get("id");

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        List<HistoryEntry> history = client.history(id);
        assertThat(history).extracting(HistoryEntry::step, HistoryEntry::event, HistoryEntry::nextStep,
                        HistoryEntry::status, HistoryEntry::attempt)
                .containsExactly(
                        tuple("weigh", Event.RETRY, null, InstanceStatus.RUNNABLE, 0),
                        tuple("weigh", Event.NEXT, "label", InstanceStatus.RUNNABLE, 1),
                        tuple("label", Event.AWAIT, null,
                                InstanceStatus.AWAITING_SIGNAL, 0),
                        tuple("label", Event.NEXT, "ship", InstanceStatus.RUNNABLE, 0),
                        tuple("ship", Event.DONE, null, InstanceStatus.DONE, 0));
        assertThat(history).allSatisfy(entry -> {
            assertThat(entry.instanceId()).isEqualTo(id);
            assertThat(entry.node()).isEqualTo(engine.nodeId());
            assertThat(entry.leaseToken()).isPositive();
            assertThat(entry.duration()).isNotNull().isGreaterThanOrEqualTo(Duration.ZERO);
        });
        assertThat(history).extracting(HistoryEntry::leaseToken).doesNotHaveDuplicates().isSorted();
        assertThat(history).extracting(HistoryEntry::at).isSorted();
        assertThat(history.get(3).signalsConsumed()).containsExactly(signal);
        assertThat(history.get(1).signalsConsumed()).isEmpty();
        // Paged by id.
        assertThat(client.history(id, history.get(1).id(), 2)).containsExactly(history.get(2), history.get(3));
    }

    @Test
    void transitionCountsAreAMachinesHistoryEventsSinceATimeByStepAndEvent() {
        MachineDefinition other = MachineDefinition.builder("other", 1, Parcel.class)
                .step("only", (parcel, ctx) -> Outcome.done(null))
                .build();
        DurableEngine engine = engines.start(parcels(), other);
        DurableClient client = engine.client();
        Instant before = Instant.now().minus(Duration.ofMinutes(1));
        long first = client.start("parcel", new Parcel(0)).id();
        long second = client.start("parcel", new Parcel(0)).id();
        long third = client.start("other", new Parcel(0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("awaiting_signal")
                && TestDatabase.status(second).equals("awaiting_signal") && TestDatabase.status(third).equals("done"));
        client.signal(first, "paid", 12, null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("done"));

        assertThat(client.transitionCounts("parcel", before)).extracting(TransitionCount::step,
                        TransitionCount::event, TransitionCount::nextStep, TransitionCount::status,
                        TransitionCount::count)
                .containsExactly(
                        tuple("label", Event.AWAIT, null, InstanceStatus.AWAITING_SIGNAL, 2L),
                        tuple("label", Event.NEXT, "ship", InstanceStatus.RUNNABLE, 1L),
                        tuple("ship", Event.DONE, null, InstanceStatus.DONE, 1L),
                        tuple("weigh", Event.NEXT, "label", InstanceStatus.RUNNABLE, 2L),
                        tuple("weigh", Event.RETRY, null, InstanceStatus.RUNNABLE, 2L));
        // Another machine's events are its own; a window that starts after them holds none.
        assertThat(client.transitionCounts("other", before)).extracting(TransitionCount::step, TransitionCount::count)
                .containsExactly(tuple("only", 1L));
        assertThat(client.transitionCounts("parcel", Instant.now().plus(Duration.ofMinutes(1)))).isEmpty();
        assertThat(client.transitionCounts("nothing", before)).isEmpty();
    }

    @Test
    void aCancelAnOperatorsRetryAndAReapAreRecordedToo() {
        DurableEngine engine = engines.start(parcels());
        DurableClient client = engine.client();
        long parked = client.start("parcel", new Parcel(0)).id();
        long lost = client.start("parcel", new Parcel(9)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(parked).equals("awaiting_signal")
                && TestDatabase.status(lost).equals("awaiting_signal"));
        client.signal(lost, "paid", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(lost).equals("failed"));

        client.cancel(parked, "customer withdrew").orThrow();
        assertThat(client.retryFailed(lost).outcome()).isEqualTo(RetryResult.Retry.RETRIED);

        assertThat(last(client.history(parked))).satisfies(entry -> {
            assertThat(entry.event()).isEqualTo(Event.CANCEL);
            assertThat(entry.step()).isEqualTo("label");
            assertThat(entry.status()).isEqualTo(InstanceStatus.CANCELLED);
            assertThat(entry.error()).isEqualTo("customer withdrew");
            assertThat(entry.leaseToken()).isNull(); // it was parked: no claim ended
            assertThat(entry.duration()).isNull();
        });
        // The stop, then the operator's retry (after which the instance may already run on).
        List<HistoryEntry> lostHistory = client.history(lost);
        int stop = lostHistory.stream().map(HistoryEntry::event).toList().indexOf(Event.STOP);
        assertThat(lostHistory.get(stop).error()).isEqualTo("lost");
        assertThat(lostHistory.get(stop + 1)).satisfies(entry -> {
            assertThat(entry.event()).isEqualTo(Event.RETRY_FAILED);
            assertThat(entry.status()).isEqualTo(InstanceStatus.RUNNABLE);
            assertThat(entry.step()).isEqualTo("ship");
            assertThat(entry.leaseToken()).isNull();
        });

        // A claim whose node died is reaped: recorded with the dead claim's token and the reason.
        Repositories repositories = Repositories.onTestDatabase();
        long orphan = repositories.starts().insert(List.of(new NewInstance("orphan", 1, "s", "{}", "q", (short) 0,
                null, 0, null, "{runnable,executing,awaiting_signal}"))).get(0).id();
        ClaimedStep dead = repositories.claims().pick("q", Map.of("orphan", List.of(1)), 1, "dead:1",
                Duration.ofMinutes(1)).get(0);
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance"
                + " SET lease_expires_at = now() - interval '1 second' WHERE id = ?", orphan);
        assertThat(engine.reapNow()).isOne();
        assertThat(client.history(orphan)).singleElement().satisfies(entry -> {
            assertThat(entry.event()).isEqualTo(Event.REAP);
            assertThat(entry.leaseToken()).isEqualTo(dead.leaseToken());
            assertThat(entry.node()).isEqualTo(engine.nodeId());
            assertThat(entry.error()).isEqualTo("lease of dead:1 expired at step s");
            assertThat(entry.attempt()).isZero();
        });
    }

    @Test
    void aFencedOutcomeLeavesNoHistory() {
        Repositories repositories = Repositories.onTestDatabase();
        TestDatabase.clean();
        StartResult started = repositories.starts().insert(List.of(new NewInstance("m", 1, "s", "{}", "q", (short) 0,
                null, 0, null, "{runnable,executing,awaiting_signal}"))).get(0);
        ClaimedStep claimed = repositories.claims().pick("q", Map.of("m", List.of(1)), 1, "node:1",
                Duration.ofMinutes(1)).get(0);
        repositories.cancels().cancel(List.of(started.id()), "stop");

        assertThat(repositories.transitions().apply(List.of(Transition.done(claimed, "1")), false).applied())
                .isEmpty();

        assertThat(historyEvents(started.id())).containsExactly("cancel");
    }

    @Test
    void retentionDeletesTheHistoryWithItsInstance() {
        DurableClient client = engines.start(parcels()).client();
        long id = client.start("parcel", new Parcel(0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.cancel(id, "gone");
        long kept = client.start("parcel", new Parcel(0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(kept).equals("awaiting_signal"));
        assertThat(historyEvents(id)).hasSize(4);
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance"
                + " SET updated_at = now() - interval '1 hour' WHERE id = ?", id);

        assertThat(Repositories.onTestDatabase().retention()
                .deleteExpired(InstanceStatus.CANCELLED, Duration.ofMinutes(1), 10)).isOne();

        assertThat(historyEvents(id)).isEmpty();
        assertThat(historyEvents(kept)).hasSize(3);
    }

    @Test
    void withHistoryOffNothingIsRecorded() {
        DurableClient client = engines.start("quiet", settings -> settings.history(false), parcels()).client();
        long id = client.start("parcel", new Parcel(0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.cancel(id, "gone");

        assertThat(client.history(id)).isEmpty();
    }

    @Test
    void aHistoryPageOutsideItsLimitsIsRefused() {
        DurableClient client = engines.clientOnly(parcels());

        assertThatThrownBy(() -> client.history(1, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A history page holds 1 to 10000 entries, not 0");
        assertThatThrownBy(() -> client.history(1, 0, 10_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A history page holds 1 to 10000 entries, not 10001");
        assertThat(client.history(424242)).isEmpty();
    }

    private static HistoryEntry last(List<HistoryEntry> history) {
        return history.get(history.size() - 1);
    }

    private static List<String> historyEvents(long id) {
        return TestDatabase.jdbc().queryForList("SELECT event FROM " + TestDatabase.SCHEMA
                + ".durable_history WHERE instance_id = ? ORDER BY id", String.class, id);
    }
}
