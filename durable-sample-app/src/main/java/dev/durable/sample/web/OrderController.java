package dev.durable.sample.web;

import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.sample.order.Line;
import dev.durable.sample.order.Order;
import dev.durable.sample.order.OrderWorkflow;
import dev.durable.sample.order.Payment;
import java.net.URI;
import java.time.Instant;
import java.util.List;
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
import tools.jackson.databind.node.ObjectNode;

/** Places orders, takes the payment provider's webhook, cancels and shows orders. */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final DurableClient durable;
    private final JsonMapper json;

    OrderController(DurableClient durable, JsonMapper json) {
        this.durable = durable;
        this.json = json;
    }

    /** An order of {@code lines}, or of one product ({@code sku}, {@code quantity}) for short. */
    record PlaceOrder(long customerId, @Nullable List<Line> lines, @Nullable String sku, @Nullable Integer quantity,
            long amountCents) {

        List<Line> allLines() {
            if (lines != null && !lines.isEmpty()) {
                return lines;
            }
            return sku == null ? List.of() : List.of(new Line(sku, quantity == null ? 1 : quantity));
        }
    }

    record CancelOrder(@Nullable String reason) {
    }

    record OrderView(long id, String status, String step, int attempt, @Nullable String awaits,
            @Nullable JsonNode order, @Nullable JsonNode result, @Nullable String lastError, Instant updatedAt,
            List<LineView> lines) {
    }

    /** One line's reservation: a child instance of the order. */
    record LineView(long id, String status, @Nullable JsonNode result, @Nullable String lastError) {
    }

    /** Starts the workflow; a customer's orders never run at the same time (partition key). */
    @PostMapping
    ResponseEntity<Map<String, Object>> place(@RequestBody PlaceOrder request) {
        List<Line> lines = request.allLines();
        if (lines.isEmpty()) {
            return ResponseEntity.badRequest().body(Map.of("error", "an order needs lines, or a sku and a quantity"));
        }
        long id = durable.start(OrderWorkflow.class,
                Order.placed(request.customerId(), lines, request.amountCents()),
                StartOptions.defaults().partitionKey("customer:" + request.customerId())).id();
        return ResponseEntity.created(URI.create("/orders/" + id)).body(Map.of("id", id));
    }

    /**
     * Cancels an order that has not ended: it stops where it is, with the reservations of its lines still running.
     * The engine's cancel runs no step, so stock an order already holds is not given back here: a shop would rather
     * signal the order and let a step give it back (docs/DESIGN.md, "Cancel").
     */
    @PostMapping("/{id}/cancel")
    ResponseEntity<Map<String, Object>> cancel(@PathVariable long id, @RequestBody(required = false)
            @Nullable CancelOrder request) {
        String reason = request == null || request.reason() == null ? "cancelled by the customer" : request.reason();
        CancelResult result = durable.cancel(id, reason);
        HttpStatus status = switch (result.outcome()) {
            case CANCELLED, ALREADY_CANCELLED -> HttpStatus.OK;
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_NO_KEY_HOLDER -> HttpStatus.NOT_FOUND;
            case REFUSED_TERMINAL_INSTANCE -> HttpStatus.CONFLICT;
        };
        return ResponseEntity.status(status).body(Map.of("result", result.outcome().label(),
                "statusBefore", result.status() == null ? "none" : result.status().label()));
    }

    /**
     * The payment provider's webhook: {@code {"eventId":"evt-1","paymentId":"PAY-1","amountCents":2599}}. The event id
     * is the signal's dedup key, so a redelivery stores nothing; {@code event}, when the provider names the kind of
     * event, is the signal's name (default {@code payment}); the other properties are the payment, sent as they came.
     * The order declares the signals it takes ({@code @DurableSignal} on {@link OrderWorkflow}), so the engine checks
     * them at the call: an event the order does not take, or a payment that does not read whole as a {@link Payment}
     * (a property it has no place for, a value of the wrong type), answers 400 with the reason, and nothing is stored.
     */
    @PostMapping("/{id}/payment")
    ResponseEntity<Map<String, Object>> pay(@PathVariable long id, @RequestBody ObjectNode webhook) {
        ObjectNode payment = webhook.deepCopy();
        JsonNode eventId = payment.remove("eventId");
        JsonNode event = payment.remove("event");
        if (eventId == null || !eventId.isString() || (event != null && !event.isString())) {
            return ResponseEntity.badRequest().body(Map.of("error", "a webhook names its event id (\"eventId\")"
                    + " and, if it says, the kind of event (\"event\"), as strings"));
        }
        SignalResult result = durable.signal(id, event == null ? OrderWorkflow.PAYMENT : event.asString(), payment,
                eventId.asString());
        HttpStatus status = switch (result.delivery()) {
            case DELIVERED, DEDUPLICATED -> HttpStatus.ACCEPTED;
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_NO_KEY_HOLDER -> HttpStatus.NOT_FOUND;
            case REFUSED_TERMINAL_INSTANCE -> HttpStatus.CONFLICT;
            case REFUSED_UNDECLARED_SIGNAL, REFUSED_WRONG_PAYLOAD -> HttpStatus.BAD_REQUEST;
        };
        SignalResult.Mismatch mismatch = result.mismatch();
        if (mismatch != null) {
            return ResponseEntity.status(status).body(Map.of("delivery", result.delivery().label(), "error",
                    mismatch.reason(), "accepts", mismatch.declared()));
        }
        return ResponseEntity.status(status).body(Map.of("delivery", result.delivery().label(),
                "wokeOrder", result.wokeInstance()));
    }

    @GetMapping("/{id}")
    ResponseEntity<OrderView> get(@PathVariable long id) {
        return durable.find(id).map(this::view).map(ResponseEntity::ok)
                .orElseGet(() -> ResponseEntity.notFound().build());
    }

    private OrderView view(DurableInstance instance) {
        List<LineView> lines = durable.children(instance.id()).stream()
                .map(line -> new LineView(line.id(), line.status().label(), tree(line.resultJson()), line.lastError()))
                .toList();
        return new OrderView(instance.id(), instance.status().label(), instance.step(), instance.attempt(),
                instance.awaits(), tree(instance.stateJson()), tree(instance.resultJson()), instance.lastError(),
                instance.updatedAt(), lines);
    }

    private @Nullable JsonNode tree(@Nullable String text) {
        return text == null ? null : json.readTree(text);
    }
}
