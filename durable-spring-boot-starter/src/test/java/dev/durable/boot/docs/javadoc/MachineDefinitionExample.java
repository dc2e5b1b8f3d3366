package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;

/** The javadoc of {@link MachineDefinition}: a machine built without Spring. */
final class MachineDefinitionExample {

    private MachineDefinitionExample() {
    }

    static class OutOfStockException extends RuntimeException {
    }

    static MachineDefinition checkout() {
        MachineDefinition checkout = MachineDefinition.builder("checkout", 1, Checkout.State.class)
                .queue("checkout")
                .initialStep("start")
                .step("start", (state, ctx) -> Outcome.next("ship", state))
                .step("ship", (state, ctx) -> Outcome.done())
                .retryPolicy(RetryPolicy.builder().maxAttempts(5).build())
                .errorHandler((error, state, ctx) -> error instanceof OutOfStockException
                        ? Outcome.stop("out of stock") : Outcome.retryByPolicy(state))
                .build();
        return checkout;
    }
}
