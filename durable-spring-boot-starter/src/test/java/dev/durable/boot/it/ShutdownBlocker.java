package dev.durable.boot.it;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;

/**
 * {@link Blocker} on a queue of its own, {@code shutdown}, which only the application of
 * {@link GracefulShutdownTest} runs: the shared integration-test application (cached, still polling in the same
 * JVM) has it at concurrency 0, so it can never take the steps whose drain that test watches.
 */
@DurableMachine(name = "shutdown-blocker", queue = "shutdown")
public class ShutdownBlocker {

    private final StepGate gate;

    ShutdownBlocker(StepGate gate) {
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
