package dev.durable.boot.docs.starter;

import dev.durable.DurableClient;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.docs.starter.Shop.Payment;

/**
 * The starter's README, section "Write a machine": starting and signalling an instance, as the README shows
 * them.
 */
final class WriteAMachine {

    private WriteAMachine() {
    }

    /** What the start and the signal answered. */
    record Started(long id, SignalResult signal) {
    }

    static Started startAndSignal(DurableClient durable, Order order, long customerId, Payment payment,
            String webhookEventId) {
        long id = durable.start(OrderWorkflow.class, order, StartOptions.defaults().partitionKey("customer:" + customerId)).id();
        SignalResult r = durable.signal(id, "payment", payment, webhookEventId);   // dedup key: a redelivery is a no-op
        return new Started(id, r);
    }
}
