package dev.durable.sample.web;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import dev.durable.sample.order.Line;
import dev.durable.sample.order.Order;
import dev.durable.sample.order.OrderWorkflow;
import dev.durable.sample.order.Payment;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small load generator: places many orders in one statement ({@code startAll}), and pays them all in one call as
 * the payment provider's webhook would, one by one.
 */
@RestController
class LoadController {

    private static final int MAX_ORDERS = 10_000;
    private static final int PAGE = 1_000;

    private final DurableClient durable;
    private final JsonMapper json;

    LoadController(DurableClient durable, JsonMapper json) {
        this.durable = durable;
        this.json = json;
    }

    @PostMapping("/load")
    ResponseEntity<Map<String, Object>> load(@RequestParam(defaultValue = "100") int orders) {
        if (orders < 1 || orders > MAX_ORDERS) {
            return ResponseEntity.badRequest().body(Map.of("error", "orders must be between 1 and " + MAX_ORDERS));
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<StartRequest> requests = IntStream.range(0, orders).mapToObj(i -> {
            long customer = random.nextLong(1, 1000);
            List<Line> lines = IntStream.range(0, random.nextInt(1, 4))
                    .mapToObj(line -> new Line("SKU-" + random.nextInt(1, 50), random.nextInt(1, 5)))
                    .toList();
            return StartRequest.of(Order.placed(customer, lines, random.nextLong(500, 50_000)),
                    StartOptions.defaults().partitionKey("customer:" + customer));
        }).toList();
        long started = System.nanoTime();
        List<StartResult> results = durable.startAll(OrderWorkflow.class, requests);
        long millis = (System.nanoTime() - started) / 1_000_000;
        return ResponseEntity.ok(Map.of("started", results.size(), "firstId", results.get(0).id(),
                "lastId", results.get(results.size() - 1).id(), "millis", millis));
    }

    /**
     * Pays every unfinished order that has no payment yet, for its amount: those waiting for their payment and those
     * still reserving stock (their payment waits in their inbox). The dedup key is the order's id, so running this
     * again, or after a crash half-way, pays no order twice; it answers how many payments were stored
     * ({@code paid}), found already stored ({@code alreadyPaid}) or refused because the order had ended meanwhile.
     */
    @PostMapping("/load/pay")
    Map<String, Object> payAll() {
        Map<SignalResult.Delivery, Integer> deliveries = new EnumMap<>(SignalResult.Delivery.class);
        for (InstanceStatus status : InstanceStatus.ACTIVE) {
            InstanceQuery query = InstanceQuery.all().machine(OrderWorkflow.NAME).status(status).limit(PAGE);
            List<DurableInstance> page;
            do {
                page = durable.list(query);
                for (DurableInstance instance : page) {
                    String state = instance.stateJson();
                    Order order = state == null ? null : json.readValue(state, Order.class);
                    if (order != null && order.paymentId() == null) {
                        Payment payment = new Payment("PAY-" + instance.id(), order.amountCents());
                        SignalResult result = durable.signal(instance.id(), OrderWorkflow.PAYMENT, payment,
                                "load-payment-" + instance.id());
                        deliveries.merge(result.delivery(), 1, Integer::sum);
                    }
                }
                if (!page.isEmpty()) {
                    query = query.afterId(page.get(page.size() - 1).id());
                }
            } while (page.size() == PAGE);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("paid", deliveries.getOrDefault(SignalResult.Delivery.DELIVERED, 0));
        answer.put("alreadyPaid", deliveries.getOrDefault(SignalResult.Delivery.DEDUPLICATED, 0));
        answer.put("refused", deliveries.getOrDefault(SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE, 0)
                + deliveries.getOrDefault(SignalResult.Delivery.REFUSED_UNKNOWN_INSTANCE, 0));
        return answer;
    }
}
