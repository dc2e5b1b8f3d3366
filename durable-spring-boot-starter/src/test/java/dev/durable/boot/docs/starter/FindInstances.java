package dev.durable.boot.docs.starter;

import dev.durable.BulkResult;
import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.docs.starter.Shop.Payment;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The starter's README, section "Find instances": by key, by a query, and in bulk, as the README shows them. */
final class FindInstances {

    private FindInstances() {
    }

    /** What the look-ups by key answered. */
    record ByKey(Optional<DurableInstance> instance, SignalResult paid, CancelResult withdrawn,
            List<DurableInstance> customersOrders) {
    }

    static ByKey byKey(DurableClient durable, Order order, long orderNumber, long customerId, Payment payment,
            String webhookEventId) {
        durable.start(OrderWorkflow.class, order, StartOptions.defaults().uniqueKey("order:" + orderNumber)
                .correlationKey("customer:" + customerId));

        Optional<DurableInstance> instance = durable.findByUniqueKey("order:" + orderNumber);
        SignalResult paid = durable.signalByUniqueKey("order:" + orderNumber, "payment", payment, webhookEventId);
        CancelResult withdrawn = durable.cancelByUniqueKey("order:" + orderNumber, "customer withdrew");
        List<DurableInstance> customersOrders = durable.list(InstanceQuery.all().correlationKey("customer:" + customerId));
        return new ByKey(instance, paid, withdrawn, customersOrders);
    }

    static List<DurableInstance> search(DurableClient durable) {
        InstanceQuery stuck = InstanceQuery.all().machine("order").step("ship").status(InstanceStatus.FAILED)
                .errorContains("carrier down").createdFrom(Instant.parse("2026-11-24T00:00:00Z")).newestFirst().limit(50);
        List<DurableInstance> page = durable.list(stuck);
        if (page.isEmpty()) {
            return page;
        }
        List<DurableInstance> next = durable.list(stuck.afterId(page.get(page.size() - 1).id()));
        return next;
    }

    static BulkResult retryAll(DurableClient durable) {
        InstanceQuery failed = InstanceQuery.all().machine("order").status(InstanceStatus.FAILED)
                .errorContains("carrier down").limit(500);
        BulkResult result;
        do {
            result = durable.bulkRetry(failed);
            failed = failed.afterId(result.lastId());
        } while (result.more());
        return result;
    }
}
