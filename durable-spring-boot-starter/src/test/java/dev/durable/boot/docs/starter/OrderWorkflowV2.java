package dev.durable.boot.docs.starter;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import tools.jackson.databind.node.ObjectNode;

/**
 * The starter's README, section "Deploying changed code": version 2 of the order, which upcasts the states of
 * version 1 and knows its step's former name.
 */
@DurableMachine(name = "order", version = 2, queue = "orders")
class OrderWorkflowV2 {

    /** The order's state in version 2: version 1 called the reservation "reservation". */
    record Order(String id, String reservationId) {
    }

    @Upcast(fromVersion = 1)                     // version 1 called it "reservation"
    ObjectNode renameReservation(ObjectNode order) {
        order.set("reservationId", order.remove("reservation"));
        return order;
    }

    @Step(value = "await-payment", initial = true, formerNames = "wait-for-payment")
    Outcome awaitPayment(Order order, StepContext ctx) {
        return ctx.awaited("payment").map(signal -> Outcome.next("ship", order))
                .orElseGet(() -> Outcome.await("payment", order));
    }

    @Step("ship")
    Outcome ship(Order order) {
        return Outcome.done(order.reservationId());
    }
}
