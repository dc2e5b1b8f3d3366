package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.Signal;
import dev.durable.SignalResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Awaits with a deadline and awaits on several names, through a running engine (docs/DESIGN.md, "Timers and
 * deadlines"): the deadline re-runs the same step, which is told it timed out and consumed nothing; a signal first
 * wakes it as before; a deadline already due fires at once.
 */
class AwaitDeadlineTest {

    record Order(int id) {
    }

    /** What one run of the step saw. */
    record Run(int attempt, boolean timedOut, List<String> awaited, List<String> inbox) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final List<Run> runs = new CopyOnWriteArrayList<>();

    /**
     * A machine whose step awaits with {@code firstOutcome} on its first run, and on its re-run ends with what it saw:
     * "timed out" or the awaited signal's name.
     */
    private MachineDefinition payment(BiFunction<Order, Integer, Outcome> firstOutcome) {
        return MachineDefinition.builder("payment", 1, Order.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> {
                    runs.add(new Run(ctx.attempt(), ctx.timedOut(),
                            ctx.awaited().stream().map(Signal::name).toList(),
                            ctx.inbox().all().stream().map(Signal::name).toList()));
                    if (runs.size() == 1) {
                        return firstOutcome.apply(state, runs.size());
                    }
                    return ctx.timedOut() ? Outcome.next("cancel", state)
                            : Outcome.done(ctx.awaited().get(0).name());
                })
                .step("cancel", (state, ctx) -> Outcome.done("timed out; inbox " + ctx.inbox().all().stream()
                        .map(Signal::name).toList()))
                .build();
    }

    @Test
    void aDeadlineThatPassesFirstReRunsTheSameStepTimedOutWithNothingConsumed() {
        DurableClient client = engines.start(payment((state, n) ->
                Outcome.await("paid", state, Duration.ofMillis(800)))).client();
        long id = client.start("payment", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        assertThat(TestDatabase.row(id)).containsEntry("awaits", "paid");
        Instant parkedAt = Instant.now();
        // An unrelated signal neither wakes it nor counts as awaited.
        assertThat(client.signal(id, "note", "hello", null).wokeInstance()).isFalse();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(Duration.between(parkedAt, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(runs).hasSize(2);
        assertThat(runs.get(1)).isEqualTo(new Run(0, true, List.of(), List.of("note")));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"timed out; inbox [note]\"")
                .containsEntry("deadline", null).containsEntry("awaits", null);
    }

    @Test
    void aSignalBeforeTheDeadlineWakesTheStepWhichDidNotTimeOut() {
        DurableClient client = engines.start(payment((state, n) ->
                Outcome.await("paid", state, Duration.ofMinutes(5)))).client();
        long id = client.start("payment", new Order(2)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        assertThat(TestDatabase.jdbc().queryForObject("SELECT deadline - now() BETWEEN interval '4 minutes'"
                + " AND interval '5 minutes' FROM durable_it.durable_instance WHERE id = ?", Boolean.class, id))
                .as("the deadline is the commit time plus the timeout, on the database's clock").isTrue();

        assertThat(client.signal(id, "paid", 1200, "evt-1"))
                .isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, true));

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(runs.get(1)).isEqualTo(new Run(0, false, List.of("paid"), List.of("paid")));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"paid\"").containsEntry("deadline", null);
    }

    @Test
    void anAwaitOnSeveralNamesIsWokenByAnyOfThemAndSeesItAsAwaited() {
        DurableClient client = engines.start(payment((state, n) ->
                Outcome.awaitAny(List.of("paid", "declined"), state))).client();
        long id = client.start("payment", new Order(3)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        assertThat(TestDatabase.jdbc().queryForObject("SELECT awaits || ' ' || awaits_set::text"
                + " FROM durable_it.durable_instance WHERE id = ?", String.class, id))
                .isEqualTo("paid {paid,declined}");

        assertThat(client.signal(id, "declined", "card expired", "evt-2").wokeInstance()).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(runs.get(1)).isEqualTo(new Run(0, false, List.of("declined"), List.of("declined")));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"declined\"").containsEntry("awaits_set", null);
    }

    @Test
    void anAwaitSetWithADeadlineTimesOutWhenNoneOfItsNamesArrives() {
        DurableClient client = engines.start(payment((state, n) ->
                Outcome.awaitAny(Set.of("paid"), state, Duration.ofMillis(300)))).client();
        long id = client.start("payment", new Order(4)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(runs.get(1).timedOut()).isTrue();
    }

    @Test
    void aDeadlineAlreadyDueFiresAtOnce() {
        DurableClient client = engines.start(payment((state, n) ->
                Outcome.awaitUntil("paid", state, Instant.now().minusSeconds(60)))).client();
        long id = client.start("payment", new Order(5)).id();

        await().atMost(Duration.ofSeconds(5)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(runs.get(1)).isEqualTo(new Run(0, true, List.of(), List.of()));
    }

    /** A signal already waiting when the step awaits with a deadline wakes it at once, not timed out. */
    @Test
    void aSignalAlreadyInTheInboxWinsOverADeadlineAlreadyDue() {
        DurableClient client = engines.start(MachineDefinition.builder("payment", 1, Order.class)
                .step("pay", (state, ctx) -> {
                    runs.add(new Run(ctx.attempt(), ctx.timedOut(), ctx.awaited().stream().map(Signal::name).toList(),
                            ctx.inbox().all().stream().map(Signal::name).toList()));
                    return runs.size() == 1 ? Outcome.await("paid", state, Duration.ZERO) : Outcome.done();
                })
                .build()).client();
        long id = client.start("payment", new Order(6), dev.durable.StartOptions.defaults()
                .delay(Duration.ofMillis(300))).id();
        client.signal(id, "paid", 1, null);

        await().atMost(Duration.ofSeconds(5)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(runs.get(1)).isEqualTo(new Run(0, false, List.of("paid"), List.of("paid")));
    }

    /** A retry keeps the await and its deadline: the re-run step is told the same. */
    @Test
    void aRetryAfterATimeOutSeesTheTimeOutAgain() {
        List<Boolean> seen = new CopyOnWriteArrayList<>();
        DurableClient client = engines.start(MachineDefinition.builder("payment", 1, Order.class)
                .step("pay", (state, ctx) -> {
                    seen.add(ctx.timedOut());
                    if (seen.size() == 1) {
                        return Outcome.await("paid", state, Duration.ofMillis(100));
                    }
                    return ctx.attempt() == 0 ? Outcome.retry(state) : Outcome.done(ctx.attempt());
                })
                .build()).client();
        long id = client.start("payment", new Order(7)).id();

        await().atMost(Duration.ofSeconds(5)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(seen).containsExactly(false, true, true);
    }

    @Test
    void badDeadlinesAndAwaitSetsAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> Outcome.await("paid", null, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("await timeout must not be negative, was PT-1S");
        assertThatThrownBy(() -> Outcome.awaitAny(List.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an await needs at least one signal name, was []");
        assertThatThrownBy(() -> Outcome.awaitAny(List.of("paid", " "), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("awaited signal name in [paid,  ] must not be null or blank, was ' '");
        assertThatThrownBy(() -> Outcome.awaitAny(List.of("paid", "paid"), null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("awaited signal name 'paid' is given twice in [paid, paid]");
        assertThatThrownBy(() -> Outcome.await(" ", null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("awaited signal name must not be null or blank, was ' '");
        assertThatThrownBy(() -> Outcome.awaitUntil("paid", null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("await deadline must not be null");
        assertThatThrownBy(() -> Outcome.await("paid", null, (Duration) null))
                .isInstanceOf(NullPointerException.class).hasMessage("await timeout must not be null");
    }
}
