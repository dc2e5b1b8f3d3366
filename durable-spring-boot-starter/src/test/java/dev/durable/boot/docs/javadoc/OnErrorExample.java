package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.boot.OnError;

/** The javadoc of {@link OnError}: a handler that decides a final failure and hands the others to the retry policy. */
class OnErrorExample {

    record State(long orderId) {
    }

    static class PaymentException extends RuntimeException {

        private final boolean permanent;

        PaymentException(String message, boolean permanent) {
            super(message);
            this.permanent = permanent;
        }

        boolean isFinal() {
            return permanent;
        }
    }

    @OnError
    Outcome onError(PaymentException e, State s) {
        return e.isFinal() ? Outcome.stop("payment refused: " + e.getMessage())
                           : Outcome.retryByPolicy(s);
    }
}
