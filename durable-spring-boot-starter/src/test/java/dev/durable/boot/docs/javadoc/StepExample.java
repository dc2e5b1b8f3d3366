package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.Step;

/** The javadoc of {@link Step}: a step with a timeout and a former name. */
class StepExample {

    record Order(long id) {
    }

    @Step(value = "reserve", initial = true, timeout = "10s", formerNames = "hold")
    Outcome reserve(Order order, StepContext ctx) {
        return Outcome.next("pay", order);
    }
}
