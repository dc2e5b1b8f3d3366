package dev.durable.boot.it;

import dev.durable.Inbox;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A machine that goes through every outcome: next, retry, an exception handled by @OnError, await, done, stop. */
@DurableMachine(name = "workflow")
public class Workflow {

    /** Every (name, step, attempt) run, and every exception @OnError methods were handed. */
    static final List<String> runs = new CopyOnWriteArrayList<>();
    static final List<Exception> handled = new CopyOnWriteArrayList<>();

    public record State(String name, int count) {
    }

    static class FlakyException extends RuntimeException {
        FlakyException(String message) {
            super(message);
        }
    }

    @Step(value = "start", initial = true)
    Outcome start(StepContext ctx, State state) {
        runs.add(state.name() + ":start:" + ctx.attempt());
        return Outcome.next("count", state);
    }

    @Step("count")
    Outcome count(State state, StepContext ctx) {
        runs.add(state.name() + ":count:" + ctx.attempt());
        return state.count() < 2 ? Outcome.retry(new State(state.name(), state.count() + 1))
                : Outcome.next("flaky", state);
    }

    @Step("flaky")
    @Retry(delay = "10ms", multiplier = "2", maxDelay = "1s")
    Outcome flaky(State state, StepContext ctx) {
        runs.add(state.name() + ":flaky:" + ctx.attempt());
        if (ctx.attempt() == 0) {
            throw new FlakyException("first try of " + state.name() + " fails");
        }
        return Outcome.next("wait", state);
    }

    @Step("wait")
    Outcome waitForGo(Inbox inbox, State state, StepContext ctx) {
        runs.add(state.name() + ":wait:" + ctx.attempt());
        return inbox.awaited("go").map(signal -> Outcome.next("finish", state))
                .orElseGet(() -> Outcome.await("go", state));
    }

    @Step("finish")
    Outcome finish(State state) {
        runs.add(state.name() + ":finish:0");
        if (state.name().startsWith("stop")) {
            return Outcome.stop("asked to stop");
        }
        return Outcome.done(Map.of("greeting", "bye " + state.name(), "count", state.count()));
    }

    @OnError
    Outcome onFlaky(FlakyException error, State state) {
        handled.add(error);
        return Outcome.retryByPolicy(state); // the step's @Retry: 10 ms, then doubling up to 1 s
    }

    @OnError
    Outcome onAnythingElse(Exception error) {
        handled.add(error);
        return Outcome.stop("unexpected: " + error);
    }
}
