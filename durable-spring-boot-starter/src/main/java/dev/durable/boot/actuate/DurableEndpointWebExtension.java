package dev.durable.boot.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link DurableEndpoint}'s operations over HTTP. A request the endpoint refuses is answered with its status
 * (400, 404 or 409) and a JSON body naming the problem and, where it applies, the allowed values, e.g.
 * {@code {"error":"Unknown queue 'orderz' on this node","queues":["default","orders"]}}. Without it, Spring Boot
 * would answer a bare {@code 400 Bad Request}, since it hides exception messages from clients.
 *
 * <p>In the place of an instance's id, the path {@code /actuator/durable/{id}} takes four names: {@code instances}
 * (search with query parameters, bulk retry and cancel with a filter), {@code holder} (the instance holding a
 * unique key: read it, signal it, cancel it), {@code in-flight} (what is in flight, as its file holds it) and
 * {@code deploy-check} (whether this node's code can run it). They share the one path because Spring Boot makes a
 * selector a path variable named after it, so a second path of one segment would collide with the id's.
 */
@EndpointWebExtension(endpoint = DurableEndpoint.class)
public class DurableEndpointWebExtension {

    /** The path segment of searches and bulk operations, in the place of an id. */
    static final String INSTANCES = "instances";
    /** The path segment of the operations on the holder of a unique key, in the place of an id. */
    static final String HOLDER = "holder";
    /** The path segment of what is in flight, in the place of an id. */
    static final String IN_FLIGHT = "in-flight";
    /** The path segment of the deploy check, in the place of an id. */
    static final String DEPLOY_CHECK = "deploy-check";

    private final DurableEndpoint delegate;

    public DurableEndpointWebExtension(DurableEndpoint delegate) {
        this.delegate = delegate;
    }

    /**
     * {@code GET /actuator/durable/{id}}: one instance; {@code GET /actuator/durable/instances?machine=order&...}: a
     * page of the instances the criteria select (named as in {@link InstanceFilter}; taken as text, so that a bad
     * one is answered with what is wrong); {@code GET /actuator/durable/holder?uniqueKey=order:42}: the instance
     * holding the key; {@code GET /actuator/durable/in-flight}: what is in flight; {@code GET
     * /actuator/durable/deploy-check}: the deploy check of this node's code against the database.
     */
    @ReadOperation
    public WebEndpointResponse<Object> instance(@Selector String id, SecurityContext securityContext,
            @Nullable String machine, @Nullable String version, @Nullable String step, @Nullable String status,
            @Nullable String queue, @Nullable String uniqueKey, @Nullable String correlationKey,
            @Nullable String createdFrom, @Nullable String createdBefore, @Nullable String updatedFrom,
            @Nullable String updatedBefore, @Nullable String errorContains, @Nullable String waitingLongerThan,
            @Nullable String afterId, @Nullable String limit, @Nullable String order) {
        return switch (id) {
            case INSTANCES -> answer(() -> {
                Map<String, @Nullable String> criteria = new LinkedHashMap<>();
                criteria.put("machine", machine);
                criteria.put("version", version);
                criteria.put("step", step);
                criteria.put("status", status);
                criteria.put("queue", queue);
                criteria.put("uniqueKey", uniqueKey);
                criteria.put("correlationKey", correlationKey);
                criteria.put("createdFrom", createdFrom);
                criteria.put("createdBefore", createdBefore);
                criteria.put("updatedFrom", updatedFrom);
                criteria.put("updatedBefore", updatedBefore);
                criteria.put("errorContains", errorContains);
                criteria.put("waitingLongerThan", waitingLongerThan);
                criteria.put("afterId", afterId);
                criteria.put("limit", limit);
                criteria.put("order", order);
                criteria.values().removeIf(Objects::isNull);
                return delegate.instances(InstanceFilter.parse(criteria), securityContext);
            });
            case HOLDER -> answer(() -> delegate.holder(uniqueKey, securityContext));
            case IN_FLIGHT -> answer(delegate::inFlight);
            case DEPLOY_CHECK -> answer(delegate::deployCheck);
            default -> withId(id, instance -> answer(() -> {
                Object found = delegate.instance(instance, securityContext);
                if (found == null) {
                    throw RejectedRequestException.notFound("No instance " + instance);
                }
                return found;
            }));
        };
    }

    /**
     * {@code POST /actuator/durable/{id}} with {@code {"action":"retry"}},
     * {@code {"action":"cancel","reason":"..."}} or {@code {"action":"rerun","step":"ship","state":"{...}"}};
     * {@code POST /actuator/durable/instances} with
     * {@code {"action":"retry"|"cancel","filter":"machine=order&status=failed","reason":"..."}};
     * {@code POST /actuator/durable/holder} with {@code {"uniqueKey":"order:42","action":"cancel","reason":"..."}}
     * or {@code {"uniqueKey":"order:42","action":"signal","signal":"payment","payload":"{\"amountCents\":2599}",
     * "dedupKey":"evt-1"}}. Spring Boot reads a body as a map of strings, so the filter is a query string (that of
     * the search it acts on) and the payload JSON text.
     */
    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String id, @Nullable String action, @Nullable String reason,
            @Nullable String filter, @Nullable String uniqueKey, @Nullable String signal, @Nullable String payload,
            @Nullable String dedupKey, @Nullable String step, @Nullable String state,
            SecurityContext securityContext) {
        return switch (id) {
            case INSTANCES -> answer(() -> {
                if (filter == null) {
                    throw RejectedRequestException.badRequest("Name the filter, e.g. {\"action\":\"retry\","
                            + "\"filter\":\"machine=order&status=failed\"} (the query string of the search; \"\""
                            + " selects every instance)", "filters", InstanceFilter.CRITERIA);
                }
                return delegate.bulk(action, InstanceFilter.parse(filter), reason);
            });
            case HOLDER -> answer(() -> delegate.actOnHolder(uniqueKey, action, reason, signal, payload, dedupKey));
            default -> withId(id, instance -> answer(() -> delegate.act(instance, action, reason, step, state,
                    securityContext)));
        };
    }

    /** {@code action} on the instance {@code id} names, or a 400 if it names none. */
    private static WebEndpointResponse<Object> withId(String id, LongFunction<WebEndpointResponse<Object>> action) {
        long instance;
        try {
            instance = Long.parseLong(id);
        } catch (NumberFormatException e) {
            // Taken as text so that a wrong id is answered here, not by a bare 400 of the parameter mapping.
            return new WebEndpointResponse<>(Map.of("error", "'" + id + "' is not an instance id (a number)"),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        return action.apply(instance);
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
