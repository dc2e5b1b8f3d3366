package dev.durable.boot.docs.quickstart;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.Step;
import java.time.Duration;

/** The starter's README, section "Quick start": the machine, as the README shows it. {@code QuickStartTest} runs it. */
@DurableMachine(name = "signup")
@DurableSignal(name = "confirmed")                       // the one signal it takes, without a payload
class Signup {

    private final Mailer mailer;                         // any bean of yours

    Signup(Mailer mailer) {
        this.mailer = mailer;
    }

    @Step(value = "send-link", initial = true)
    Outcome sendLink(Account account, StepContext ctx) {
        mailer.sendConfirmationLink(account.email(), ctx.instanceId());
        return Outcome.next("await-confirmation", account);
    }

    @Step("await-confirmation")                          // runs again when "confirmed" arrives or time is up
    Outcome awaitConfirmation(Account account, StepContext ctx) {
        if (ctx.timedOut()) {
            return Outcome.done(account);                // not confirmed within 3 days
        }
        return ctx.awaited("confirmed").map(signal -> Outcome.done(new Account(account.email(), true)))
                .orElseGet(() -> Outcome.await("confirmed", account, Duration.ofDays(3)));
    }
}
