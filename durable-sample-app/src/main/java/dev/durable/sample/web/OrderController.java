package dev.durable.sample.web;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.sample.order.Order;
import dev.durable.sample.order.OrderWorkflow;
import dev.durable.sample.order.Payment;
import java.net.URI;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Places orders, takes the payment provider's webhook and shows orders. */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final DurableClient durable;
    private final JsonMapper json;

    OrderController(DurableClient durable, JsonMapper json) {
        this.durable = durable;
        this.json = json;
    }

    record PlaceOrder(long customerId, String sku, int quantity, long amountCents) {
    }

    record PaymentWebhook(String eventId, String paymentId, long amountCents) {
    }

    record OrderView(long id, String status, String step, int attempt, @Nullable String awaits,
            @Nullable JsonNode order, @Nullable JsonNode result, @Nullable String lastError, Instant updatedAt) {
    }

    /** Starts the workflow; a customer's orders never run at the same time (partition key). */
    @PostMapping
    ResponseEntity<Map<String, Object>> place(@RequestBody PlaceOrder request) {
        long id = durable.start(OrderWorkflow.class,
                Order.placed(request.customerId(), request.sku(), request.quantity(), request.amountCents()),
                StartOptions.defaults().partitionKey("customer:" + request.customerId())).id();
        return ResponseEntity.created(URI.create("/orders/" + id)).body(Map.of("id", id));
    }

    /** The payment webhook: the provider's event id deduplicates redeliveries. */
    @PostMapping("/{id}/payment")
    ResponseEntity<Map<String, Object>> pay(@PathVariable long id, @RequestBody PaymentWebhook webhook) {
        SignalResult result = durable.signal(id, OrderWorkflow.PAYMENT,
                new Payment(webhook.paymentId(), webhook.amountCents()), webhook.eventId());
        HttpStatus status = switch (result.delivery()) {
            case DELIVERED, DEDUPLICATED -> HttpStatus.ACCEPTED;
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_NO_KEY_HOLDER -> HttpStatus.NOT_FOUND;
            case REFUSED_TERMINAL_INSTANCE -> HttpStatus.CONFLICT;
        };
        return ResponseEntity.status(status).body(Map.of("delivery", result.delivery().name().toLowerCase(),
                "wokeOrder", result.wokeInstance()));
    }

    @GetMapping("/{id}")
    ResponseEntity<OrderView> get(@PathVariable long id) {
        return durable.find(id).map(this::view).map(ResponseEntity::ok)
                .orElseGet(() -> ResponseEntity.notFound().build());
    }

    private OrderView view(DurableInstance instance) {
        return new OrderView(instance.id(), instance.status().label(), instance.step(), instance.attempt(),
                instance.awaits(), tree(instance.stateJson()), tree(instance.resultJson()), instance.lastError(),
                instance.updatedAt());
    }

    private @Nullable JsonNode tree(@Nullable String text) {
        return text == null ? null : json.readTree(text);
    }
}
