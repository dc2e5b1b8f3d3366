package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import tools.jackson.databind.node.ObjectNode;

/** The javadoc of {@link Upcast}: the upcaster of a renamed property. */
@DurableMachine(name = "upcast-example", version = 2)
class UpcastExample {

    record Order(String reservationId) {
    }

    @Step("ship")
    Outcome ship(Order order) {
        return Outcome.done();
    }

    @Upcast(fromVersion = 1)
    ObjectNode renameReservation(ObjectNode order) {
        order.set("reservationId", order.remove("reservation"));
        return order;
    }
}
