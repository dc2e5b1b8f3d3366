package dev.durable.boot.docs.starter;

import dev.durable.BulkResult;
import dev.durable.DurableClient;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;

/**
 * The starter's README, section "Deploying changed code": the bulk retry of the instances suspended before the fix
 * was deployed (the fix itself is {@link OrderWorkflowV2}).
 */
class DeployChangedCode {

    private final DurableClient durable;

    DeployChangedCode(DurableClient durable) {
        this.durable = durable;
    }

    BulkResult resume() {
        BulkResult page = durable.bulkRetry(InstanceQuery.all().machine("order").status(InstanceStatus.SUSPENDED)
                .limit(500));
        return page;
    }
}
