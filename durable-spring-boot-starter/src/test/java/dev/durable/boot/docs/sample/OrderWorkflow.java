package dev.durable.boot.docs.sample;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/**
 * The sample's README, section "Deploy a changed order state": the sample's order workflow with the upcaster that
 * the next release adds (the sample's DeployWalkthroughTest runs the whole of it, dev.durable.nextrelease.order).
 */
@DurableMachine(name = OrderWorkflow.NAME, version = 3, queue = "orders", stepTimeout = "30s")
public class OrderWorkflow {

    static final String NAME = "order";

    /** The renamed state, cut to what the upcaster concerns. */
    record Order(@Nullable String reservationId) {
    }

    @Upcast(fromVersion = 2)                     // version 2 called it "reservation"
    ObjectNode renameReservation(ObjectNode order) {
        order.set("reservationId", order.remove("reservation"));
        return order;
    }

    @Step(value = "ship", initial = true)
    Outcome ship(Order order, StepContext ctx) {
        return Outcome.done(order.reservationId());
    }
}
