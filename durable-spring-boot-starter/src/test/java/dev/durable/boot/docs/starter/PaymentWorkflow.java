package dev.durable.boot.docs.starter;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import dev.durable.boot.docs.starter.Retries.Bank;
import dev.durable.boot.docs.starter.Retries.BankException;
import dev.durable.boot.docs.starter.Retries.CardDeclinedException;
import dev.durable.boot.docs.starter.Retries.Mailer;
import dev.durable.boot.docs.starter.Retries.Payment;

/** The starter's README, section "Retries": a machine whose steps retry as their {@code @Retry} says. */
@DurableMachine(name = "payment")
@Retry(maxAttempts = "5", delay = "2s", nonRetryable = CardDeclinedException.class)
class PaymentWorkflow {

    private final Bank bank;
    private final Mailer mailer;

    PaymentWorkflow(Bank bank, Mailer mailer) {
        this.bank = bank;
        this.mailer = mailer;
    }

    @Step(value = "charge", initial = true)
    @Retry(maxAttempts = "20", maxDelay = "1h")  // the bank is sometimes away for a while
    Outcome charge(Payment payment, StepContext ctx) {
        return Outcome.next("receipt", payment.charged(bank.charge(ctx.instanceId(), payment)));
    }

    @Step("receipt")
    @Retry(maxAttempts = "1")                    // no retry: a failed receipt fails the payment at once
    Outcome receipt(Payment payment) {
        return Outcome.done(mailer.sendReceipt(payment));
    }

    @OnError                                     // decides the failures it takes, or hands them back to @Retry
    Outcome onBankError(BankException e, Payment payment) {
        return e.isFinal() ? Outcome.stop("bank refused: " + e.getMessage()) : Outcome.retryByPolicy(payment);
    }
}
