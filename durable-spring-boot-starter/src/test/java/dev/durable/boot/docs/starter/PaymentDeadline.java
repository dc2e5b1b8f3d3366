package dev.durable.boot.docs.starter;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import dev.durable.boot.docs.starter.Shop.Order;
import java.time.Duration;

/** The starter's README, section "Write a machine": an await with a deadline, and the step told it timed out. */
@DurableMachine(name = "payment-deadline", version = 1, queue = "orders")
class PaymentDeadline {

    @Step(value = "await-payment", initial = true)
    Outcome awaitPayment(Order order, StepContext ctx) {
        if (ctx.timedOut()) {
            return Outcome.next("cancel", order);
        }
        return ctx.awaited("payment").isPresent() ? Outcome.done()
                : Outcome.await("payment", order, Duration.ofHours(24));
    }

    @Step("cancel")
    Outcome cancel(Order order) {
        return Outcome.stop("payment did not arrive in time");
    }
}
