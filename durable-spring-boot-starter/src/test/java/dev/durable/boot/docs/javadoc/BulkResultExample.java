package dev.durable.boot.docs.javadoc;

import dev.durable.BulkResult;
import dev.durable.DurableClient;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;

/** The javadoc of {@link BulkResult}: paging through a bulk retry. */
final class BulkResultExample {

    private BulkResultExample() {
    }

    static BulkResult retry(DurableClient durable) {
        InstanceQuery query = InstanceQuery.all().machine("order").status(InstanceStatus.FAILED).limit(500);
        BulkResult page;
        do {
            page = durable.bulkRetry(query);
            query = query.afterId(page.lastId());
        } while (page.more());
        return page;
    }
}
