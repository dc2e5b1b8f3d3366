package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;

/** The javadoc of {@link MachineDefinition}: a machine built without Spring. */
final class MachineDefinitionExample {

    private MachineDefinitionExample() {
    }

    static MachineDefinition checkout() {
        MachineDefinition checkout = MachineDefinition.builder("checkout", 1, Checkout.State.class)
                .queue("checkout")
                .initialStep("start")
                .step("start", (state, ctx) -> Outcome.next("ship", state))
                .step("ship", (state, ctx) -> Outcome.done())
                .errorHandler((error, state, ctx) -> Outcome.stop(error.toString()))
                .build();
        return checkout;
    }
}
