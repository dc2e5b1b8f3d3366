package dev.durable.boot.autoconfigure;

import static dev.durable.boot.autoconfigure.AutoConfigurationRunner.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.DurableEngine;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The retry policy in the starter (docs/DESIGN.md, "Retry policies"): {@code durable.retry.*} is the engine's default,
 * {@code @Retry} on a machine and on a step narrow it, each leaving out what the level above says; an invalid value
 * fails the start naming the property, or the bean, method and attribute.
 */
class RetryPolicyAutoConfigurationTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @DurableMachine(name = "shipping")
    @Retry(maxAttempts = "${test.shipping.attempts:6}", nonRetryable = IOException.class)
    static class Shipping {
        @Step(value = "label", initial = true)
        Outcome label(String parcel) {
            return Outcome.next("ship", parcel);
        }

        @Step("ship")
        @Retry(delay = "100ms", multiplier = "1.5")
        Outcome ship(String parcel) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "plain")
    static class Plain {
        @Step("only")
        @Retry(maxAttempts = "1")
        Outcome only(String state) {
            return Outcome.done();
        }

        Outcome unannotated(String state) {
            return Outcome.done();
        }
    }

    @Test
    void theRetryPropertiesAreTheEnginesDefaultAndEachRetryAnnotationLeavesOutWhatTheLevelAboveSays() {
        runner.withUserConfiguration(Shipping.class, Plain.class)
                .withPropertyValues("durable.retry.max-attempts=4", "durable.retry.delay=2s",
                        "durable.retry.multiplier=3", "durable.retry.max-delay=1m", "durable.retry.jitter=0",
                        "durable.retry.non-retryable=java.lang.IllegalArgumentException,java.lang.IllegalStateException")
                .run(context -> {
                    DurableEngine engine = context.getBean(DurableEngine.class);
                    RetryPolicy engineDefault = RetryPolicy.builder().maxAttempts(4).delay(Duration.ofSeconds(2))
                            .multiplier(3).maxDelay(Duration.ofMinutes(1)).jitter(Duration.ZERO)
                            .nonRetryable(IllegalArgumentException.class, IllegalStateException.class).build();
                    assertThat(engine.settings().retryPolicy()).isEqualTo(engineDefault);

                    MachineDefinition shipping = engine.machines().resolve("shipping", null);
                    RetryPolicy machineWide = engineDefault.toBuilder().maxAttempts(6)
                            .nonRetryable(IOException.class).build();
                    assertThat(shipping.retryPolicy()).isEqualTo(machineWide);
                    assertThat(shipping.retryPolicyOf(shipping.step("label"))).isEqualTo(machineWide);
                    assertThat(shipping.retryPolicyOf(shipping.step("ship"))).isEqualTo(machineWide.toBuilder()
                            .delay(Duration.ofMillis(100)).multiplier(1.5).build());

                    MachineDefinition plain = engine.machines().resolve("plain", null);
                    assertThat(plain.retryPolicy()).as("no @Retry on the class: the engine's").isNull();
                    assertThat(plain.retryPolicyOf(plain.step("only")))
                            .isEqualTo(engineDefault.toBuilder().maxAttempts(1).build());
                    assertThat(plain.retryPolicyOf(plain.step("only")).retries()).isFalse();
                });
    }

    @Test
    void withoutPropertiesTheEngineRetriesByTheDefaultPolicyAndAPlaceholderReachesTheAnnotation() {
        runner.withUserConfiguration(Shipping.class)
                .withPropertyValues("test.shipping.attempts=2")
                .run(context -> {
                    DurableEngine engine = context.getBean(DurableEngine.class);
                    assertThat(engine.settings().retryPolicy()).isEqualTo(RetryPolicy.defaults());
                    assertThat(engine.machines().resolve("shipping", null).retryPolicy().maxAttempts()).isEqualTo(2);
                });
    }

    @Test
    void anInvalidRetryPropertyFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.max-delay=500ms")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.retry.max-delay' (value 'PT0.5S')",
                        "PT0.5S is shorter than the delay (PT1S)"));
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.max-attempts=0")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.retry.max-attempts' (value '0')", "must be at least 1 (1: no retry)"));
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.multiplier=0.5")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.retry.multiplier' (value '0.5')", "must be a number of at least 1"));
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.jitter=-1s")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.retry.jitter' (value 'PT-1S')", "must not be negative"));
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.non-retryable=java.lang.String")
                .run(context -> assertStartupFailure(context, InvalidDurablePropertyException.class,
                        "property 'durable.retry.non-retryable' (value '[class java.lang.String]')",
                        "holds java.lang.String, which is not a Throwable"));
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.non-retryable=com.example.NoSuchException")
                .run(context -> assertStartupFailure(context, BindException.class,
                        "Failed to bind properties under 'durable.retry.non-retryable'"));
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.delay=soon")
                .run(context -> assertStartupFailure(context, BindException.class,
                        "Failed to bind properties under 'durable.retry.delay'"));
    }

    @Test
    void theFailureAnalysisOfAnInvalidRetryPropertyNamesItAndItsValue() {
        runner.withUserConfiguration(Plain.class)
                .withPropertyValues("durable.retry.delay=10m")
                .run(context -> {
                    FailureAnalysis analysis = new InvalidDurablePropertyFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("Property: durable.retry.max-delay")
                            .contains("Value: PT5M").contains("PT5M is shorter than the delay (PT10M)");
                });
    }

    /** Steps that throw, each a kind of failure; {@code @OnError} takes one kind and hands the other back. */
    @DurableMachine(name = "courier")
    @Retry(maxAttempts = "3", delay = "10ms", jitter = "0", nonRetryable = UnsupportedOperationException.class)
    static class Courier {

        static final List<String> runs = new CopyOnWriteArrayList<>();

        static class CourierException extends RuntimeException {

            private final boolean permanent;

            CourierException(String message, boolean permanent) {
                super(message);
                this.permanent = permanent;
            }
        }

        @Step("deliver")
        Outcome deliver(String parcel, StepContext ctx) {
            runs.add(parcel + ":" + ctx.attempt());
            switch (parcel) {
                case "refused" -> throw new CourierException("address refused", true);
                case "busy" -> {
                    if (ctx.attempt() < 2) {
                        throw new CourierException("courier busy", false);
                    }
                    return Outcome.done("delivered");
                }
                case "unsupported" -> throw new UnsupportedOperationException("no courier goes there");
                default -> throw new IllegalStateException("van broke down");
            }
        }

        @OnError
        Outcome onCourier(CourierException e, String parcel) {
            return e.permanent ? Outcome.stop("refused: " + e.getMessage()) : Outcome.retryByPolicy(parcel);
        }
    }

    @Test
    void anOnErrorMethodDecidesItsFailuresOrHandsThemBackAndTheOthersGoToTheRetryPolicy() {
        Courier.runs.clear();
        runner.withUserConfiguration(Courier.class).run(context -> {
            DurableClient durable = context.getBean(DurableClient.class);
            long refused = durable.start("courier", "refused").id();
            long busy = durable.start("courier", "busy").id();
            long unsupported = durable.start("courier", "unsupported").id();
            long broken = durable.start("courier", "broken").id();

            await().atMost(Duration.ofSeconds(20)).until(() -> List.of(refused, busy, unsupported, broken).stream()
                    .noneMatch(id -> List.of("runnable", "executing").contains(TestDatabase.status(id))));
            assertThat(durable.find(refused).orElseThrow().lastError()).isEqualTo("refused: address refused");
            assertThat(TestDatabase.status(busy)).as("handed back to the policy twice").isEqualTo("done");
            assertThat(durable.history(busy)).extracting(HistoryEntry::event)
                    .containsExactly(HistoryEntry.Event.RETRY, HistoryEntry.Event.RETRY, HistoryEntry.Event.DONE);
            assertThat(durable.find(unsupported).orElseThrow().lastError()).isEqualTo("java.lang"
                    + ".UnsupportedOperationException: no courier goes there; not retried: the retry policy"
                    + " declares java.lang.UnsupportedOperationException non-retryable");
            assertThat(durable.find(broken).orElseThrow().lastError()).as("no @OnError method takes it")
                    .isEqualTo("retry policy gave up after 3 attempts (at most 3); last error:"
                            + " java.lang.IllegalStateException: van broke down");
            assertThat(Courier.runs).containsExactlyInAnyOrder("refused:0", "busy:0", "busy:1", "busy:2",
                    "unsupported:0", "broken:0", "broken:1", "broken:2");
        });
    }

    @DurableMachine(name = "bad-delay")
    static class BadDelay {
        @Step("only")
        @Retry(delay = "soon")
        Outcome only(String state) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "bad-max-delay")
    @Retry(maxDelay = "10ms")
    static class BadMaxDelay {
        @Step("only")
        Outcome only(String state) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "bad-attempts")
    static class BadAttempts {
        @Step("only")
        @Retry(maxAttempts = "five")
        Outcome only(String state) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "retry-elsewhere")
    static class RetryElsewhere {
        @Step("only")
        Outcome only(String state) {
            return Outcome.done();
        }

        @Retry(maxAttempts = "3")
        Outcome helper(String state) {
            return Outcome.done();
        }
    }

    @Test
    void anInvalidRetryAnnotationFailsStartupNamingTheBeanTheMethodAndTheAttribute() {
        runner.withUserConfiguration(BadDelay.class)
                .run(context -> assertStartupFailure(context, InvalidMachineBeanException.class,
                        BadDelay.class.getName(), "@Step only(String state)",
                        "@Retry(delay = \"soon\") is not a duration", "Write a duration such as 2s, or leave it out"
                                + " for the value of the machine's @Retry or durable.retry.*"));
        runner.withUserConfiguration(BadMaxDelay.class)
                .run(context -> assertStartupFailure(context, InvalidMachineBeanException.class,
                        BadMaxDelay.class.getName(), "@Retry(maxDelay) PT0.01S is shorter than the delay (PT1S)",
                        "or leave it out for the value of durable.retry.*"));
        runner.withUserConfiguration(BadAttempts.class)
                .run(context -> assertStartupFailure(context, InvalidMachineBeanException.class,
                        "@Retry(maxAttempts = \"five\") is not a whole number"));
        runner.withUserConfiguration(RetryElsewhere.class)
                .run(context -> assertStartupFailure(context, InvalidMachineBeanException.class,
                        "@Retry helper(String state)", "@Retry is on a method that is not a @Step"));
    }
}
