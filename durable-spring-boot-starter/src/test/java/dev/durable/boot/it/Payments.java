package dev.durable.boot.it;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.Step;

/** A machine that declares its one signal (docs/DESIGN.md, "Declared signals"): a payment, read typed. */
@DurableMachine(name = "payments")
@DurableSignal(name = "paid", payload = Payments.Payment.class)
public class Payments {

    public record Bill(String customer, long cents) {
    }

    public record Payment(String paymentId, long cents) {
    }

    @Step("await-payment")
    Outcome awaitPayment(Bill bill, StepContext ctx) {
        return ctx.awaited("paid", Payment.class).map(payment -> Outcome.done(payment))
                .orElseGet(() -> Outcome.await("paid", bill));
    }
}
