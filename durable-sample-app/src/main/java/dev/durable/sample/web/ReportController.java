package dev.durable.sample.web;

import dev.durable.DurableClient;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.sample.report.OrderReport;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /reports}: the nightly reports written so far, newest first. */
@RestController
class ReportController {

    private final DurableClient durable;

    ReportController(DurableClient durable) {
        this.durable = durable;
    }

    @GetMapping("/reports")
    List<OrderReport> reports() {
        return durable.list(InstanceQuery.all().machine("nightly-report").status(InstanceStatus.DONE)
                        .limit(InstanceQuery.MAX_LIMIT)).stream()
                .map(instance -> instance.result(OrderReport.class))
                .filter(Objects::nonNull)
                .sorted(Comparator.comparing(OrderReport::countedAt).reversed())
                .toList();
    }
}
