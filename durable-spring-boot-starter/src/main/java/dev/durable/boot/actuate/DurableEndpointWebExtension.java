package dev.durable.boot.actuate;

import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link DurableEndpoint}'s write operations over HTTP: a request the endpoint refuses is answered with its
 * status (400, 404 or 409) and a JSON body naming the problem and, where it applies, the allowed values, e.g.
 * {@code {"error":"Unknown queue 'orderz' on this node","queues":["default","orders"]}}. Without it, Spring Boot
 * would answer a bare {@code 400 Bad Request}, since it hides exception messages from clients.
 */
@EndpointWebExtension(endpoint = DurableEndpoint.class)
public class DurableEndpointWebExtension {

    private final DurableEndpoint delegate;

    public DurableEndpointWebExtension(DurableEndpoint delegate) {
        this.delegate = delegate;
    }

    /**
     * {@code POST /actuator/durable/{id}} with {@code {"action":"retry"}} or
     * {@code {"action":"cancel","reason":"..."}}.
     */
    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String id, @Nullable String action, @Nullable String reason) {
        long instance;
        try {
            instance = Long.parseLong(id);
        } catch (NumberFormatException e) {
            // Taken as text so that a wrong id is answered here, not by a bare 400 of the parameter mapping.
            return new WebEndpointResponse<>(Map.of("error", "'" + id + "' is not an instance id (a number)"),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        return answer(() -> delegate.act(instance, action, reason));
    }

    /**
     * {@code POST /actuator/durable} with {@code {"queue":"orders","action":"pause"}} or
     * {@code {"schedule":"nightly","action":"pause"}}, or {@code "resume"}.
     */
    @WriteOperation
    public WebEndpointResponse<Object> control(@Nullable String queue, @Nullable String schedule,
            @Nullable String action) {
        return answer(() -> delegate.control(queue, schedule, action));
    }

    private static WebEndpointResponse<Object> answer(Supplier<Object> operation) {
        try {
            return new WebEndpointResponse<>(operation.get());
        } catch (RejectedRequestException e) {
            return e.response();
        }
    }
}
