package dev.durable.boot.docs.javadoc;

import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;

/** The javadoc of {@link InstanceQuery}: a query of failed shipments. */
final class InstanceQueryExample {

    private InstanceQueryExample() {
    }

    static InstanceQuery stuck() {
        InstanceQuery stuck = InstanceQuery.all().machine("order").step("ship").status(InstanceStatus.FAILED)
                .errorContains("carrier down").newestFirst().limit(50);
        return stuck;
    }
}
