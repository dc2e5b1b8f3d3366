package dev.durable.boot.docs.javadoc.signals;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.Step;
import dev.durable.boot.docs.javadoc.signals.OrderWorkflow.Payment;

/**
 * The javadoc of {@link DurableSignal} (a machine declaring the signals it accepts) and of
 * {@link StepContext#awaited(String, Class)} (its step reading the payload typed).
 */
@DurableMachine(name = "order", version = 2)
@DurableSignal(name = "payment", payload = Payment.class)
@DurableSignal(name = "cancel-request")
class OrderWorkflow {

    record Payment(String paymentId, long cents) {
    }

    record Order(long id, Payment payment) {

        Order paid(Payment payment) {
            return new Order(id, payment);
        }
    }

    @Step("await-payment")
    Outcome awaitPayment(Order order, StepContext ctx) {
        return ctx.awaited("payment", Payment.class)
                .map(payment -> Outcome.next("ship", order.paid(payment)))
                .orElseGet(() -> Outcome.await("payment", order));
    }
}
