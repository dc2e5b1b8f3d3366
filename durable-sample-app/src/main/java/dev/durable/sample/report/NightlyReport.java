package dev.durable.sample.report;

import dev.durable.DurableClient;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSchedule;
import dev.durable.boot.Step;
import dev.durable.sample.order.OrderWorkflow;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Counts the orders (the instances of the machine {@code order}, not the order lines its children reserve, which run on
 * the same queue) by status every night at {@code sample.report.cron} (default 02:00) in
 * {@code sample.report.zone}: one instance per night in the whole cluster, however many sample nodes run. A night
 * when no node ran is made up once, at the next start (the default miss policy, run once).
 */
@DurableMachine(name = "nightly-report")
@DurableSchedule(name = "nightly-report", cron = "${sample.report.cron:0 0 2 * * *}",
        zone = "${sample.report.zone:UTC}")
public class NightlyReport {

    private static final Logger log = LoggerFactory.getLogger(NightlyReport.class);

    // A provider, not the client itself: the client's engine needs this machine first.
    private final ObjectProvider<DurableClient> durable;

    NightlyReport(ObjectProvider<DurableClient> durable) {
        this.durable = durable;
    }

    /**
     * Scheduled instances start with no state: the step counts and ends with the report as the result. It counts by
     * machine, not by queue: the queue {@code orders} also holds the order lines.
     */
    @Step("count")
    Outcome count(@Nullable OrderReport state, StepContext ctx) {
        Map<String, Long> orders = new TreeMap<>();
        durable.getObject().count(InstanceQuery.all().machine(OrderWorkflow.NAME))
                .forEach((InstanceStatus status, Long n) -> orders.put(status.label(), n));
        OrderReport report = new OrderReport(Instant.now(), orders);
        log.info("Nightly report (instance {}): orders by status {}", ctx.instanceId(), orders);
        return Outcome.done(report);
    }
}
