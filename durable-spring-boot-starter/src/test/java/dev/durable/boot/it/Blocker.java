package dev.durable.boot.it;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;

/**
 * A machine on queue {@code slow} whose first attempt of a step waits at the {@link StepGate} until the test opens
 * it (or the engine interrupts it); later attempts finish at once. For lease and fencing tests.
 */
@DurableMachine(name = "blocker", queue = "slow")
public class Blocker {

    private final StepGate gate;

    Blocker(StepGate gate) {
        this.gate = gate;
    }

    @Step("work")
    Outcome work(String label, StepContext ctx) throws InterruptedException {
        if (ctx.attempt() == 0) {
            gate.pass(ctx.instanceId());
        }
        return Outcome.done(label + " finished on attempt " + ctx.attempt());
    }
}
