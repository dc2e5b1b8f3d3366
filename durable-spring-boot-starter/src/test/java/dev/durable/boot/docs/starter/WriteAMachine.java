package dev.durable.boot.docs.starter;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.docs.starter.Shop.Payment;
import dev.durable.boot.docs.starter.Shop.Shipment;
import org.jspecify.annotations.Nullable;

/**
 * The starter's README, section "Write a machine": starting, signalling and reading an instance, as the README
 * shows them. {@code WriteAMachineTest} runs them.
 */
final class WriteAMachine {

    private WriteAMachine() {
    }

    /** What the start and the signal answered. */
    record Started(long id, SignalResult signal) {
    }

    /** What reading the instance gave. */
    record Read(DurableInstance instance, @Nullable Order order, @Nullable Shipment shipment) {
    }

    static Started startAndSignal(DurableClient durable, Order order, long customerId, Payment payment,
            String webhookEventId) {
        long id = durable.start(OrderWorkflow.class, order, StartOptions.defaults().partitionKey("customer:" + customerId)).id();
        SignalResult r = durable.signal(id, "payment", payment, webhookEventId);   // dedup key: a redelivery is a no-op
        return new Started(id, r);
    }

    static Read read(DurableClient durable, long id) {
        DurableInstance instance = durable.find(id).orElseThrow();
        Order order = instance.state(Order.class);
        Shipment shipment = instance.result(Shipment.class);     // null until the instance is done
        return new Read(instance, order, shipment);
    }
}
