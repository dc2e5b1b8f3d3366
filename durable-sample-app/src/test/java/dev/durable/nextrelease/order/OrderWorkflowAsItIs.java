package dev.durable.nextrelease.order;

import dev.durable.boot.DurableMachine;
import dev.durable.sample.SampleProperties;
import dev.durable.sample.order.Carrier;
import dev.durable.sample.order.Warehouse;

/** The change deployed as it is: the state's property renamed, the version left at the sample's, 2. */
@DurableMachine(name = OrderWorkflow.NAME, version = 2, queue = "orders", stepTimeout = "30s")
public class OrderWorkflowAsItIs extends OrderWorkflow {

    OrderWorkflowAsItIs(Warehouse warehouse, Carrier carrier, SampleProperties properties) {
        super(warehouse, carrier, properties);
    }
}
