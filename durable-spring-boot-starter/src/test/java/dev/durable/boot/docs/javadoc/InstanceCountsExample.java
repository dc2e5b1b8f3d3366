package dev.durable.boot.docs.javadoc;

import dev.durable.DurableClient;
import dev.durable.InstanceCounts;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.WaitReason;
import java.util.Map;

/** The javadoc of {@link InstanceCounts} and of {@link DurableClient#count(InstanceQuery)}: counting the orders. */
final class InstanceCountsExample {

    private InstanceCountsExample() {
    }

    static long waiting(DurableClient durable) {
        InstanceCounts orders = durable.countLive().machine("order");
        long waitingForPayment = orders.count(WaitReason.SIGNAL) + orders.count(WaitReason.DEADLINE);
        long waitingForLines = orders.count(WaitReason.CHILDREN);
        return waitingForPayment + waitingForLines;
    }

    static Map<InstanceStatus, Long> everyOrder(DurableClient durable) {
        Map<InstanceStatus, Long> orders = durable.count(InstanceQuery.all().machine("order"));
        return orders;
    }
}
