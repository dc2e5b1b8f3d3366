package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;

/** The javadoc of {@link DurableMachine}: the machine. Its state is the state of the other javadoc examples too. */
@DurableMachine(name = "checkout", version = 1, queue = "checkout")
class Checkout {
    record State(long orderId) {}

    @Step(value = "start", initial = true)
    Outcome start(State state, StepContext ctx) {
        return Outcome.done();
    }
}
