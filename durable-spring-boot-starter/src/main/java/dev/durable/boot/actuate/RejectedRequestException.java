package dev.durable.boot.actuate;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * A request to the {@code durable} endpoint that it refuses, with what the client needs to correct it: the HTTP
 * status and a body such as {@code {"error":"Unknown action 'stop' for a queue","actions":["pause","resume"]}}.
 * Over JMX it is an {@link InvalidEndpointRequestException} whose message says the same.
 */
final class RejectedRequestException extends InvalidEndpointRequestException {

    private final int status;
    private final Map<String, Object> body;

    private RejectedRequestException(int status, String error, Map<String, Object> body) {
        super(error + body.entrySet().stream().filter(entry -> !entry.getKey().equals("error"))
                .map(entry -> "; " + entry.getKey() + ": " + entry.getValue()).reduce("", String::concat), error);
        this.status = status;
        this.body = body;
    }

    /** A request that is wrong, with the values {@code allowedName} allows. */
    static RejectedRequestException badRequest(String error, String allowedName, Collection<String> allowed) {
        return badRequest(error, allowedName, (Object) List.copyOf(allowed));
    }

    /** A request that is wrong, with what is allowed: e.g. {@code "maxLimit": 10000}. */
    static RejectedRequestException badRequest(String error, String allowedName, Object allowed) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put(allowedName, allowed);
        return new RejectedRequestException(WebEndpointResponse.STATUS_BAD_REQUEST, error, body);
    }

    /** A request that is wrong, where the error says all there is to say. */
    static RejectedRequestException badRequest(String error) {
        return new RejectedRequestException(WebEndpointResponse.STATUS_BAD_REQUEST, error, Map.of("error", error));
    }

    /** A request for something that does not exist. */
    static RejectedRequestException notFound(String error) {
        return new RejectedRequestException(WebEndpointResponse.STATUS_NOT_FOUND, error, Map.of("error", error));
    }

    /** A request that the present state of things does not allow. */
    static RejectedRequestException conflict(String error) {
        return new RejectedRequestException(409, error, Map.of("error", error));
    }

    /** The answer over HTTP. */
    WebEndpointResponse<Object> response() {
        return new WebEndpointResponse<>(body, status);
    }
}
