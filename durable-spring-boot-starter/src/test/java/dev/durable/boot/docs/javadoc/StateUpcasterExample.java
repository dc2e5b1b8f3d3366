package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.StateUpcaster;
import tools.jackson.databind.node.ObjectNode;

/** The javadoc of {@link StateUpcaster}: the upcaster of a renamed property, declared on the builder. */
class StateUpcasterExample {

    record Order(String reservationId) {
    }

    static MachineDefinition orderV2() {
        return MachineDefinition.builder("order", 2, Order.class)
                .step("ship", (order, ctx) -> Outcome.done())
                .upcaster(1, stored -> {
                    ObjectNode order = (ObjectNode) stored;
                    order.set("reservationId", order.remove("reservation")); // renamed in version 2
                    return order;
                })
                .build();
    }
}
