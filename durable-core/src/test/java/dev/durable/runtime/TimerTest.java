package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Durable timers: a {@code next} after a delay or at an instant. The waiting row is a runnable row eligible later
 * (no thread, no claim, no memory held), the attempt is left alone, and the step runs no earlier than due.
 */
class TimerTest {

    record Reminder(String text) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final AtomicLong setAt = new AtomicLong();
    private final AtomicLong rangAt = new AtomicLong();

    private MachineDefinition reminder(Outcome timer) {
        return MachineDefinition.builder("reminder", 1, Reminder.class)
                .initialStep("set")
                .step("set", (state, ctx) -> {
                    setAt.set(System.nanoTime());
                    return timer;
                })
                .step("ring", (state, ctx) -> {
                    rangAt.set(System.nanoTime());
                    return Outcome.done(state.text() + " at attempt " + ctx.attempt());
                })
                .build();
    }

    @Test
    void aNextAfterADelayWaitsAsARowAndRunsNoEarlierWithTheAttemptUntouched() {
        runs(reminder(Outcome.next("ring", new Reminder("tea"), Duration.ofMillis(1500))), UnaryOperator.identity());
    }

    @Test
    void aDelayedNextIsNotRunInlineOnTheClaimItHolds() {
        runs(reminder(Outcome.next("ring", new Reminder("tea"), Duration.ofMillis(1500))),
                settings -> settings.inlineNextSteps(true));
    }

    private void runs(MachineDefinition machine, UnaryOperator<EngineSettings.Builder> adjust) {
        DurableEngine engine = engines.start("test-node", adjust, machine);
        long id = engine.client().start("reminder", new Reminder("tea")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> "ring".equals(TestDatabase.row(id).get("step")));
        Map<String, Object> waiting = TestDatabase.row(id);
        assertThat(waiting).containsEntry("status", "runnable").containsEntry("attempt", 0)
                .containsEntry("lease_owner", null);
        assertThat(((Number) waiting.get("eligible_in_seconds")).doubleValue()).isBetween(0.5, 1.5);
        assertThat(engine.claims()).as("a waiting timer holds no step").isZero();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(Duration.ofNanos(rangAt.get() - setAt.get())).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        assertThat(TestDatabase.row(id)).containsEntry("result", "\"tea at attempt 0\"");
    }

    /**
     * The poller sleeps until the next waiting row falls due, not a whole poll interval: with a 10 s poll interval a
     * 1.5 s timer fires about on time.
     */
    @Test
    void aTimerFiresWhenDueEvenWithAPollIntervalLongerThanItsDelay() {
        DurableEngine engine = engines.start("test-node", settings -> settings.pollInterval(Duration.ofSeconds(10))
                .idlePollInterval(Duration.ofSeconds(10))
                .reaperInterval(Duration.ofSeconds(10)), reminder(Outcome.next("ring", new Reminder("tea"),
                        Duration.ofMillis(1500))));
        long id = engine.client().start("reminder", new Reminder("tea")).id();

        await().atMost(Duration.ofSeconds(8)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(Duration.ofNanos(rangAt.get() - setAt.get())).isBetween(Duration.ofMillis(1500),
                Duration.ofMillis(3000));
    }

    @Test
    void aNextAtAnInstantBecomesEligibleThen() {
        Instant at = Instant.now().plusSeconds(30);
        DurableEngine engine = engines.start(reminder(Outcome.nextAt("ring", new Reminder("call"), at)));
        long id = engine.client().start("reminder", new Reminder("call")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> "ring".equals(TestDatabase.row(id).get("step")));
        Instant eligible = TestDatabase.jdbc().queryForObject("SELECT eligible_at FROM durable_it.durable_instance"
                + " WHERE id = ?", java.sql.Timestamp.class, id).toInstant();
        assertThat(Duration.between(at, eligible).abs()).isLessThan(Duration.ofSeconds(1));
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");
    }

    @Test
    void aNextAtAnInstantAlreadyPastRunsAtOnce() {
        DurableEngine engine = engines.start(reminder(Outcome.nextAt("ring", new Reminder("late"),
                Instant.now().minusSeconds(3600))));
        long id = engine.client().start("reminder", new Reminder("late")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
    }

    @Test
    void aNegativeDelayOrAMissingInstantIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> Outcome.next("ring", null, Duration.ofSeconds(-2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("next step's delay must not be negative, was PT-2S");
        assertThatThrownBy(() -> Outcome.next("ring", null, (Duration) null))
                .isInstanceOf(NullPointerException.class).hasMessage("next step's delay must not be null");
        assertThatThrownBy(() -> Outcome.nextAt("ring", null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("next step's instant must not be null");
        assertThatThrownBy(() -> Outcome.next(" ", null, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
