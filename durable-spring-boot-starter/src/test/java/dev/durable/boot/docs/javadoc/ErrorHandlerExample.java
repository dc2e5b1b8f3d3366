package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.machine.ErrorHandler;

/** The javadoc of {@link ErrorHandler}: a handler that decides one failure and hands the others to the retry policy. */
final class ErrorHandlerExample {

    private ErrorHandlerExample() {
    }

    record Order(long id) {
    }

    static class CardDeclinedException extends RuntimeException {

        String reason() {
            return "insufficient funds";
        }
    }

    static ErrorHandler<Order> handler() {
        ErrorHandler<Order> handler = (error, order, ctx) -> error instanceof CardDeclinedException declined
                ? Outcome.stop("declined: " + declined.reason())
                : Outcome.retryByPolicy(order);
        return handler;
    }
}
