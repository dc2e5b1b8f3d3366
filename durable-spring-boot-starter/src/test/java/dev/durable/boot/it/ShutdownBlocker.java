package dev.durable.boot.it;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;

/**
 * {@link Blocker}'s step on a queue of its own, {@code shutdown}, which only the application of
 * {@link GracefulShutdownTest} runs: the shared integration-test application (cached, still polling in the same
 * JVM) has it at concurrency 0, so it can never take the steps whose drain that test watches.
 */
@DurableMachine(name = "shutdown-blocker", queue = "shutdown")
public class ShutdownBlocker {

    @Step("work")
    Outcome work(String label, StepContext ctx) throws InterruptedException {
        Blocker.started(ctx.instanceId()).countDown();
        if (ctx.attempt() == 0) {
            Blocker.release(ctx.instanceId()).await();
        }
        return Outcome.done(label + " finished on attempt " + ctx.attempt());
    }
}
