package dev.durable.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The retry policy's computation, without a database: its delays are Spring's {@code ExponentialBackOff}'s for the
 * row's attempt, within their bounds, it gives up after its attempts, and it never retries a non-retryable type or
 * its subclasses (docs/DESIGN.md, "Retry policies"). The engine applying it is
 * {@code RetryByPolicyTest}.
 */
class RetryPolicyTest {

    @Test
    void withoutJitterTheDelaysGrowByTheMultiplierUpToTheMaximumAndThePolicyGivesUpAfterItsAttempts() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(7).delay(Duration.ofSeconds(1)).multiplier(3)
                .maxDelay(Duration.ofSeconds(20)).jitter(Duration.ZERO).build();

        assertThat(IntStream.range(0, 7).mapToObj(policy::delayAfter).toList()).containsExactly(
                Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(9), Duration.ofSeconds(20),
                Duration.ofSeconds(20), Duration.ofSeconds(20), null);
        assertThat(policy.delayAfter(100)).as("an attempt past the last (a row re-run by crashes)").isNull();
        assertThatThrownBy(() -> policy.delayAfter(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempt must not be negative, was -1");
    }

    @Test
    void theDelaysAreThoseOfSpringsExponentialBackOffReplayedToTheAttempt() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(12).delay(Duration.ofMillis(150)).multiplier(1.7)
                .maxDelay(Duration.ofMillis(4000)).jitter(Duration.ZERO).build();
        BackOffExecution spring = policy.backOff().start();
        List<Duration> springs = new ArrayList<>();
        for (long next = spring.nextBackOff(); next != BackOffExecution.STOP; next = spring.nextBackOff()) {
            springs.add(Duration.ofMillis(next));
        }

        assertThat(springs).hasSize(11).as("Spring's max attempts are the retries");
        assertThat(IntStream.range(0, 11).mapToObj(policy::delayAfter).toList()).isEqualTo(springs);
    }

    @Test
    void withJitterEachDelayStaysWithinItsAttemptsRangeAndNeverLeavesTheDelayAndTheMaximum() {
        // delay 1 s x 2, at most 10 s, jitter 400 ms grown with the delay: attempt k draws from
        // [max(d - 400 ms x d/1 s, 1 s), min(d + 400 ms x d/1 s, 10 s)] around d = min(2^k s, 10 s).
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(8).delay(Duration.ofSeconds(1)).multiplier(2)
                .maxDelay(Duration.ofSeconds(10)).jitter(Duration.ofMillis(400)).build();
        long[][] ranges = {{1000, 1400}, {1200, 2800}, {2400, 5600}, {4800, 10000}, {6000, 10000},
                {6000, 10000}, {6000, 10000}};
        for (int attempt = 0; attempt < ranges.length; attempt++) {
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int draw = 0; draw < 2000; draw++) {
                long millis = policy.delayAfter(attempt).toMillis();
                min = Math.min(min, millis);
                max = Math.max(max, millis);
            }
            assertThat(min).as("attempt %d's shortest delay", attempt).isGreaterThanOrEqualTo(ranges[attempt][0]);
            assertThat(max).as("attempt %d's longest delay", attempt).isLessThanOrEqualTo(ranges[attempt][1]);
            assertThat(max - min).as("attempt %d's delays are spread", attempt)
                    .isGreaterThan((ranges[attempt][1] - ranges[attempt][0]) / 2);
        }
        assertThat(policy.delayAfter(7)).isNull();
    }

    @Test
    void aPolicyThatRetriesForAsGoodAsEverComputesALateAttemptWithoutReplayingEveryOne() {
        RetryPolicy forever = RetryPolicy.builder().maxAttempts(Integer.MAX_VALUE).jitter(Duration.ZERO).build();

        assertThat(forever.delayAfter(Integer.MAX_VALUE - 2)).isEqualTo(RetryPolicy.DEFAULT_MAX_DELAY);
        assertThat(forever.delayAfter(Integer.MAX_VALUE - 1)).isNull();
        RetryPolicy fixed = RetryPolicy.builder().maxAttempts(Integer.MAX_VALUE).multiplier(1)
                .jitter(Duration.ZERO).build();
        assertThat(fixed.delayAfter(1_000_000_000)).isEqualTo(RetryPolicy.DEFAULT_DELAY);
    }

    @Test
    void noneNeverRetriesAndTheDefaultsAreTheConstants() {
        assertThat(RetryPolicy.none().retries()).isFalse();
        assertThat(RetryPolicy.none().maxAttempts()).isOne();
        assertThat(RetryPolicy.none().delayAfter(0)).isNull();
        assertThat(RetryPolicy.none().describe()).isEqualTo("none");

        RetryPolicy defaults = RetryPolicy.defaults();
        assertThat(defaults).isEqualTo(RetryPolicy.builder().build());
        assertThat(defaults.maxAttempts()).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS);
        assertThat(defaults.delay()).isEqualTo(RetryPolicy.DEFAULT_DELAY);
        assertThat(defaults.multiplier()).isEqualTo(RetryPolicy.DEFAULT_MULTIPLIER);
        assertThat(defaults.maxDelay()).isEqualTo(RetryPolicy.DEFAULT_MAX_DELAY);
        assertThat(defaults.jitter()).isEqualTo(RetryPolicy.DEFAULT_JITTER);
        assertThat(defaults.nonRetryable()).isEmpty();
        assertThat(defaults.retries()).isTrue();
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults).hasSameHashCodeAs(defaults);
        assertThat(defaults.toBuilder().maxAttempts(3).build()).isNotEqualTo(defaults);
        // The default gives up after about eight and a half minutes of trying: 1 + 2 + 4 + ... + 256 s, jitter aside.
        RetryPolicy nominal = defaults.toBuilder().jitter(Duration.ZERO).build();
        assertThat(IntStream.range(0, 9).mapToLong(attempt -> nominal.delayAfter(attempt).toSeconds()).sum())
                .isEqualTo(511);
    }

    @Test
    void aNonRetryableTypeCoversItsSubclassesAndNothingElse() {
        RetryPolicy policy = RetryPolicy.builder().nonRetryable(IllegalArgumentException.class, IOException.class)
                .build();

        assertThat(policy.nonRetryableTypeOf(new NumberFormatException("x"))).isEqualTo(IllegalArgumentException.class);
        assertThat(policy.nonRetryableTypeOf(new SocketTimeoutException("x"))).isEqualTo(IOException.class);
        assertThat(policy.nonRetryableTypeOf(new IllegalStateException("x"))).isNull();
        assertThat(policy.nonRetryableTypeOf(new UncheckedIOException(new IOException("x"))))
                .as("a wrapper is judged by its own type").isNull();
        assertThat(policy.describe()).contains("not retrying [java.lang.IllegalArgumentException, java.io.IOException]");
    }

    @Test
    void eachInvalidValueIsRefusedNamingIt() {
        assertInvalid(RetryPolicy.builder().maxAttempts(0), "maxAttempts", "must be at least 1 (1: no retry), was 0");
        assertInvalid(RetryPolicy.builder().delay(Duration.ofMillis(-1)), "delay", "must not be negative, was PT-0.001S");
        assertInvalid(RetryPolicy.builder().delay(null), "delay", "must not be negative, was null");
        assertInvalid(RetryPolicy.builder().multiplier(0.5), "multiplier",
                "must be a number of at least 1 (1: a fixed delay), was 0.5");
        assertInvalid(RetryPolicy.builder().multiplier(Double.NaN), "multiplier",
                "must be a number of at least 1 (1: a fixed delay), was NaN");
        assertInvalid(RetryPolicy.builder().delay(Duration.ofSeconds(2)).maxDelay(Duration.ofSeconds(1)), "maxDelay",
                "PT1S is shorter than the delay (PT2S): no delay could respect both");
        assertInvalid(RetryPolicy.builder().jitter(Duration.ofSeconds(-1)), "jitter", "must not be negative, was PT-1S");
        assertInvalid(RetryPolicy.builder().maxDelay(Duration.ofSeconds(Long.MAX_VALUE)), "maxDelay",
                "is too long to count in milliseconds: PT2562047788015215H30M7S");
        assertInvalid(RetryPolicy.builder().nonRetryable(java.util.Arrays.asList(IOException.class, null)),
                "nonRetryable", "holds a null type: [class java.io.IOException, null]");
        @SuppressWarnings({"unchecked", "rawtypes"})
        List<Class<? extends Throwable>> notThrowable = (List) List.of(String.class);
        assertInvalid(RetryPolicy.builder().nonRetryable(notThrowable), "nonRetryable",
                "holds java.lang.String, which is not a Throwable");
    }

    @Test
    void anErrorHandlerDelegatesWithAnOutcomeOfKindRetryWithoutADelay() {
        Outcome outcome = Outcome.retryByPolicy("state");

        assertThat(outcome.kind()).isEqualTo(Outcome.Kind.RETRY);
        assertThat(outcome).isEqualTo(new Outcome.Retry("state", null));
        assertThat(Outcome.retry("state")).isNotEqualTo(outcome);
    }

    @Test
    void aMachineAndItsStepsCarryTheirPolicies() {
        RetryPolicy machineWide = RetryPolicy.builder().maxAttempts(3).build();
        RetryPolicy forShipping = RetryPolicy.builder().maxAttempts(20).build();
        MachineDefinition machine = MachineDefinition.builder("checkout", 1, String.class)
                .retryPolicy("ship", forShipping)
                .initialStep("pay")
                .step("pay", (state, ctx) -> Outcome.next("ship", state))
                .step("ship", (state, ctx) -> Outcome.done())
                .retryPolicy(machineWide)
                .build();

        assertThat(machine.retryPolicy()).isEqualTo(machineWide);
        assertThat(machine.retryPolicyOf(machine.step("pay"))).isEqualTo(machineWide);
        assertThat(machine.retryPolicyOf(machine.step("ship"))).isEqualTo(forShipping);
        assertThat(machine.step("ship").retryPolicy()).isEqualTo(forShipping);
        MachineDefinition engineDefault = MachineDefinition.builder("plain", 1, String.class)
                .step("only", (state, ctx) -> Outcome.done()).build();
        assertThat(engineDefault.retryPolicyOf(engineDefault.step("only"))).isNull();
    }

    @Test
    void aPolicyForAStepTheMachineDoesNotDeclareIsRefused() {
        assertThatThrownBy(() -> MachineDefinition.builder("checkout", 1, String.class).source("bean 'c'")
                .step("pay", (state, ctx) -> Outcome.done())
                .retryPolicy("shipp", RetryPolicy.none())
                .build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') declares a retry policy for step 'shipp', which it does"
                        + " not declare (steps: [pay])");
    }

    private static void assertInvalid(RetryPolicy.Builder builder, String setting, String problem) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(RetryPolicy.InvalidRetryPolicyException.class,
                invalid -> {
                    assertThat(invalid.setting()).isEqualTo(setting);
                    assertThat(invalid.problem()).isEqualTo(problem);
                    assertThat(invalid).hasMessage("Invalid retry policy: " + setting + " " + problem);
                });
    }
}
