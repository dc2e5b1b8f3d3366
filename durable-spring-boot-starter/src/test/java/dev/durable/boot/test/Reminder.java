package dev.durable.boot.test;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import java.time.Duration;

/** The machine of the @DurableTest tests: it waits a day for a call, and rings when none came. */
@DurableMachine(name = "reminder", version = 1, queue = "reminders")
class Reminder {

    record Call(String who) {
    }

    @Step(value = "wait", initial = true)
    Outcome waitForTheCall(Call call, StepContext ctx) {
        if (ctx.timedOut()) {
            return Outcome.done("rang " + call.who());
        }
        return ctx.awaited("called").isPresent() ? Outcome.done("called") : Outcome.await("called", call,
                Duration.ofDays(1));
    }
}
