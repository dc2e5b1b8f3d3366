package dev.durable.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Decides what happens when a step of the {@link DurableMachine} throws (or times out, or returns an invalid
 * outcome, or its state cannot be read). The method returns an {@link dev.durable.Outcome} and takes, in any order
 * and each at most once: the exception (any {@link Exception} type, or {@link Throwable}), the state (which is
 * {@code null} when it could not be read), the {@link dev.durable.StepContext} and the {@link dev.durable.Inbox}.
 *
 * <p>A machine may declare several {@code @OnError} methods for different exception types: the one whose type is
 * closest to the thrown exception is called. A method decides the failures it accepts; it hands one back to the step's
 * retry policy ({@link Retry @Retry}, {@code durable.retry.*}) by returning
 * {@link dev.durable.Outcome#retryByPolicy(Object)}. A failure no method accepts (or any, when the machine declares
 * none) is retried by the retry policy, and fails the instance once the policy gives up. Not called when a worker
 * crashes: a crashed step simply runs again.
 *
 * <pre>{@code
 * @OnError
 * Outcome onError(PaymentException e, State s) {
 *     return e.isFinal() ? Outcome.stop("payment refused: " + e.getMessage())
 *                        : Outcome.retryByPolicy(s);
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OnError {
}
