package dev.durable.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How the steps of a {@link DurableMachine} (on the class) or one {@link Step} (on its method) are retried when they
 * fail and no {@link OnError @OnError} method decides: the engine's {@link dev.durable.machine.RetryPolicy}, each
 * retry a durable timer. An attribute left out takes the value of the level above: a step's from its machine's
 * {@code @Retry}, a machine's from the {@code durable.retry.*} properties. Attribute values may use {@code ${...}}
 * placeholders; an invalid one fails the start naming the bean, the method and the attribute.
 *
 * <pre>{@code
 * @DurableMachine(name = "order")
 * @Retry(maxAttempts = "5", delay = "2s", nonRetryable = CardDeclinedException.class)
 * class OrderWorkflow {
 *
 *     @Step(value = "ship", initial = true)
 *     @Retry(maxAttempts = "20", maxDelay = "1h")   // the carrier is often down for a while
 *     Outcome ship(Order order, StepContext ctx) {
 *         return Outcome.next("mail", order);
 *     }
 *
 *     @Step("mail")
 *     @Retry(maxAttempts = "1")                      // no retry: a failed e-mail fails the order at once
 *     Outcome mail(Order order, StepContext ctx) {
 *         return Outcome.done();
 *     }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Retry {

    /** How many times a failing step runs in all, the first run included, e.g. {@code "5"}; {@code "1"}: no retry. */
    String maxAttempts() default "";

    /** The delay before the first retry, e.g. {@code "2s"}. */
    String delay() default "";

    /** What each further delay is multiplied by, e.g. {@code "2"}; {@code "1"}: a fixed delay. */
    String multiplier() default "";

    /** The longest delay, jitter included, e.g. {@code "10m"}. */
    String maxDelay() default "";

    /**
     * How far the first delay may move at random, grown with the delay by the multiplier, e.g. {@code "500ms"}; a
     * delay never moves below {@link #delay()} nor above {@link #maxDelay()}.
     */
    String jitter() default "";

    /** The types of failure never retried, with their subclasses: the instance fails at once. */
    Class<? extends Throwable>[] nonRetryable() default {};
}
