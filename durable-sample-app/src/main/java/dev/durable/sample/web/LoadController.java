package dev.durable.sample.web;

import dev.durable.DurableClient;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import dev.durable.sample.order.Order;
import dev.durable.sample.order.OrderWorkflow;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A small load generator: places many orders in one statement ({@code startAll}). */
@RestController
class LoadController {

    private static final int MAX_ORDERS = 10_000;

    private final DurableClient durable;

    LoadController(DurableClient durable) {
        this.durable = durable;
    }

    @PostMapping("/load")
    ResponseEntity<Map<String, Object>> load(@RequestParam(defaultValue = "100") int orders) {
        if (orders < 1 || orders > MAX_ORDERS) {
            return ResponseEntity.badRequest().body(Map.of("error", "orders must be between 1 and " + MAX_ORDERS));
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<StartRequest> requests = IntStream.range(0, orders).mapToObj(i -> {
            long customer = random.nextLong(1, 1000);
            return StartRequest.of(Order.placed(customer, "SKU-" + random.nextInt(1, 50), random.nextInt(1, 5),
                    random.nextLong(500, 50_000)), StartOptions.defaults().partitionKey("customer:" + customer));
        }).toList();
        long started = System.nanoTime();
        List<StartResult> results = durable.startAll(OrderWorkflow.class, requests);
        long millis = (System.nanoTime() - started) / 1_000_000;
        return ResponseEntity.ok(Map.of("started", results.size(), "firstId", results.get(0).id(),
                "lastId", results.get(results.size() - 1).id(), "millis", millis));
    }
}
