package dev.durable.nextrelease.order;

import dev.durable.boot.DurableMachine;
import dev.durable.boot.Upcast;
import dev.durable.sample.SampleProperties;
import dev.durable.sample.order.Carrier;
import dev.durable.sample.order.Warehouse;
import tools.jackson.databind.node.ObjectNode;

/** The change with its upcaster: version 3, which brings the states version 2 stored to its own. */
@DurableMachine(name = OrderWorkflow.NAME, version = 3, queue = "orders", stepTimeout = "30s")
public class OrderWorkflowUpcasting extends OrderWorkflow {

    OrderWorkflowUpcasting(Warehouse warehouse, Carrier carrier, SampleProperties properties) {
        super(warehouse, carrier, properties);
    }

    /** Version 2 called it {@code reservation}. */
    @Upcast(fromVersion = 2)
    ObjectNode renameReservation(ObjectNode order) {
        order.set("reservationId", order.remove("reservation"));
        return order;
    }
}
