package dev.durable.boot.docs.readme;

import dev.durable.DurableClient;
import dev.durable.StartOptions;
import dev.durable.boot.docs.readme.Shop.Order;
import dev.durable.boot.docs.readme.Shop.Payment;
import dev.durable.boot.docs.readme.Shop.Webhook;

/** README.md, opening section: starting an instance and signalling it. */
final class Intro {

    private Intro() {
    }

    /** The instance's id. */
    static long startAndSignal(DurableClient durable, Order order, Payment payment, Webhook webhook) {
        long id = durable.start(OrderWorkflow.class, order, StartOptions.defaults().partitionKey(order.customer())).id();
        durable.signal(id, "payment", payment, webhook.eventId());        // deduplicated by the event id
        return id;
    }
}
