package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import dev.durable.boot.docs.javadoc.OrderWorkflow.CardDeclinedException;

/** The javadoc of {@link Retry}: a machine's policy, and two steps that narrow it. */
@DurableMachine(name = "order")
@Retry(maxAttempts = "5", delay = "2s", nonRetryable = CardDeclinedException.class)
class OrderWorkflow {

    record Order(long id) {
    }

    static class CardDeclinedException extends RuntimeException {
    }

    @Step(value = "ship", initial = true)
    @Retry(maxAttempts = "20", maxDelay = "1h")   // the carrier is often down for a while
    Outcome ship(Order order, StepContext ctx) {
        return Outcome.next("mail", order);
    }

    @Step("mail")
    @Retry(maxAttempts = "1")                      // no retry: a failed e-mail fails the order at once
    Outcome mail(Order order, StepContext ctx) {
        return Outcome.done();
    }
}
