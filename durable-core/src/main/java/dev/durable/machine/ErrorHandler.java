package dev.durable.machine;

import dev.durable.Outcome;
import dev.durable.StepContext;
import org.jspecify.annotations.Nullable;

/**
 * Decides what happens when a step throws (or returns an invalid outcome, or its row cannot be run: an unknown
 * step, an unreadable state, a timeout). Not called when a worker crashes: a reaped step simply runs again.
 *
 * <p>A machine without a handler is retried by its step's {@link RetryPolicy}; a handler decides instead, and may
 * hand a failure it does not want to decide back to that policy by returning
 * {@link dev.durable.Outcome#retryByPolicy(Object)} (docs/DESIGN.md, "Retry policies"):
 *
 * <pre>{@code
 * ErrorHandler<Order> handler = (error, order, ctx) -> error instanceof CardDeclinedException declined
 *         ? Outcome.stop("declined: " + declined.reason())
 *         : Outcome.retryByPolicy(order);
 * }</pre>
 */
@FunctionalInterface
public interface ErrorHandler<S> {

    /**
     * @param error   what the step threw, or a {@link StepFailureException} describing why it could not run
     * @param state   the state the step was given; {@code null} when it could not be read (a state of {@code null}
     *                in the returned outcome then keeps the stored JSON untouched)
     * @param context the step's context
     */
    Outcome onError(Exception error, @Nullable S state, StepContext context) throws Exception;
}
