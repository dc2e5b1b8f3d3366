package dev.durable.boot.docs.starter;

import dev.durable.DurableClient;
import dev.durable.SignalResult;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** The starter's README, section "Write a machine", declared signals: a webhook answering a refusal with a 400. */
@RestController
class PaymentWebhook {

    private final DurableClient durable;

    PaymentWebhook(DurableClient durable) {
        this.durable = durable;
    }

    @PostMapping("/orders/{id}/payment")             // the provider's JSON, as it came: the machine checks it
    ResponseEntity<Map<String, Object>> paid(@PathVariable long id, @RequestHeader("Webhook-Id") String eventId,
            @RequestBody JsonNode payment) {
        SignalResult r = durable.signal(id, "payment", payment, eventId);
        return switch (r.delivery()) {
            case DELIVERED, DEDUPLICATED -> ResponseEntity.accepted().build();
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_NO_KEY_HOLDER -> ResponseEntity.notFound().build();
            case REFUSED_TERMINAL_INSTANCE -> ResponseEntity.status(HttpStatus.CONFLICT).build();
            case REFUSED_UNDECLARED_SIGNAL, REFUSED_WRONG_PAYLOAD -> ResponseEntity.badRequest()
                    .body(Map.of("error", r.mismatch().reason(), "accepts", r.mismatch().declared()));
        };
    }
}
