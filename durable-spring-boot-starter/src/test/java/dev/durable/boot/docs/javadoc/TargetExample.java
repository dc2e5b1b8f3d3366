package dev.durable.boot.docs.javadoc;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.Target;
import dev.durable.TargetCheck;
import java.time.Duration;
import java.util.List;

/** The javadoc of {@link DurableClient#checkTargets(List)}: the orders that wait for their payment too long. */
final class TargetExample {

    private TargetExample() {
    }

    static List<DurableInstance> late(DurableClient durable) {
        TargetCheck payments = durable.checkTargets(List.of(
                Target.timeAtStep("order", "await-payment", Duration.ofHours(24)))).get(0);
        List<DurableInstance> late = durable.list(payments.target().breaching());
        return late;
    }
}
