package dev.durable.boot.actuate;

import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

/**
 * The criteria of an {@link InstanceQuery} as the {@code durable} endpoint takes them: the query parameters of
 * {@code GET /actuator/durable/instances}, or the same written as a query string in the {@code filter} of a bulk
 * operation's body ({@code "filter":"machine=order&status=failed"}), so that the search an operator looked at is the
 * one a bulk operation acts on. Each is named as the query's setter ({@code machine}, {@code status},
 * {@code createdFrom}, {@code afterId}, ...); statuses are comma-separated labels (or the parameter repeated),
 * instants are ISO-8601 ({@code 2026-11-25T10:15:30Z}), {@code waitingLongerThan} a duration as a property takes
 * it ({@code 24h}, {@code PT24H}), and {@code order} is {@code oldest_first} or
 * {@code newest_first}. A bad value is refused naming it and what is allowed; in a {@code filter}, so is a criterion
 * there is not, since a misspelt one would widen what a bulk operation acts on (query parameters of a GET that name
 * none are left unread by Spring Boot before they get here).
 */
final class InstanceFilter {

    /** The criteria, in the order the README lists them. */
    static final List<String> CRITERIA = List.of("machine", "version", "step", "status", "queue", "uniqueKey",
            "correlationKey", "createdFrom", "createdBefore", "updatedFrom", "updatedBefore", "errorContains",
            "waitingLongerThan", "afterId", "limit", "order");
    private static final List<String> ORDERS = Arrays.stream(InstanceQuery.Order.values())
            .map(InstanceQuery.Order::label).toList();
    private static final List<String> STATUSES = Arrays.stream(InstanceStatus.values()).map(InstanceStatus::label)
            .toList();
    private static final String INSTANT_FORMAT = "an ISO-8601 instant, e.g. 2026-11-25T10:15:30Z";
    private static final String DURATION_FORMAT = "a duration as a property takes it, e.g. 30s, 24h or PT24H";

    private InstanceFilter() {
    }

    /**
     * The query a bulk operation's {@code filter} names, a query string such as
     * {@code machine=order&status=failed,cancelled&errorContains=carrier%20down}; empty for every instance.
     *
     * @throws RejectedRequestException for a criterion there is not, one given twice, or a bad value
     */
    static InstanceQuery parse(String filter) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : filter.split("&")) {
            if (pair.isBlank()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            String before = values.putIfAbsent(name, value);
            if (before != null) {
                if (!name.equals("status")) {
                    throw RejectedRequestException.badRequest("Give " + name + " once in the filter", "filters",
                            CRITERIA);
                }
                values.put(name, before + "," + value);
            }
        }
        return parse(values);
    }

    /**
     * The query the criteria {@code values} name (absent or {@code null}: not set).
     *
     * @throws RejectedRequestException for a criterion there is not, or a value that is not one of its kind
     */
    static InstanceQuery parse(Map<String, String> values) {
        for (String name : values.keySet()) {
            if (!CRITERIA.contains(name)) {
                throw RejectedRequestException.badRequest("Unknown filter '" + name + "'", "filters", CRITERIA);
            }
        }
        Integer limit = integer(values, "limit");
        if (limit != null && (limit < 1 || limit > InstanceQuery.MAX_LIMIT)) {
            throw RejectedRequestException.badRequest("limit must be between 1 and " + InstanceQuery.MAX_LIMIT
                    + ", was " + values.get("limit"), "maxLimit", InstanceQuery.MAX_LIMIT);
        }
        List<InstanceStatus> statuses = statuses(values.get("status"));
        Long afterId = number(values, "afterId");
        String order = values.get("order");
        try {
            InstanceQuery query = InstanceQuery.all()
                    .machine(values.get("machine"))
                    .version(integer(values, "version"))
                    .step(values.get("step"))
                    .queue(values.get("queue"))
                    .uniqueKey(values.get("uniqueKey"))
                    .correlationKey(values.get("correlationKey"))
                    .createdFrom(instant(values, "createdFrom"))
                    .createdBefore(instant(values, "createdBefore"))
                    .updatedFrom(instant(values, "updatedFrom"))
                    .updatedBefore(instant(values, "updatedBefore"))
                    .errorContains(values.get("errorContains"))
                    .waitingLongerThan(duration(values, "waitingLongerThan"))
                    .afterId(afterId == null ? 0 : afterId)
                    .limit(limit == null ? InstanceQuery.DEFAULT_LIMIT : limit)
                    .order(order == null ? InstanceQuery.Order.OLDEST_FIRST : order(order));
            return statuses.isEmpty() ? query : query.statuses(statuses);
        } catch (IllegalArgumentException e) {
            // A range that selects nothing, a NUL character, a negative afterId: InstanceQuery names the problem.
            throw RejectedRequestException.badRequest(String.valueOf(e.getMessage()), "filters", CRITERIA);
        }
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw RejectedRequestException.badRequest("'" + text + "' in the filter is not URL-encoded text: "
                    + e.getMessage());
        }
    }

    private static @Nullable Long number(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw RejectedRequestException.badRequest("'" + value + "' is not a whole number, as " + name
                    + " must be", "filters", CRITERIA);
        }
    }

    private static @Nullable Integer integer(Map<String, String> values, String name) {
        Long value = number(values, name);
        if (value != null && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw RejectedRequestException.badRequest(value + " is too large for " + name, "filters", CRITERIA);
        }
        return value == null ? null : value.intValue();
    }

    private static @Nullable Instant instant(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw RejectedRequestException.badRequest("'" + value + "' is not an instant, as " + name + " must be",
                    "format", INSTANT_FORMAT);
        }
    }

    private static @Nullable Duration duration(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(value.strip());
        } catch (IllegalArgumentException e) {
            throw RejectedRequestException.badRequest("'" + value + "' is not a duration, as " + name + " must be",
                    "format", DURATION_FORMAT);
        }
    }

    /** Comma-separated labels; a query parameter given twice arrives so too. */
    private static List<InstanceStatus> statuses(@Nullable String value) {
        List<InstanceStatus> statuses = new ArrayList<>();
        for (String label : value == null ? new String[0] : value.split(",")) {
            String status = label.strip();
            if (!STATUSES.contains(status)) {
                throw RejectedRequestException.badRequest("Unknown instance status '" + status + "'", "statuses",
                        STATUSES);
            }
            statuses.add(InstanceStatus.fromLabel(status));
        }
        return statuses;
    }

    private static InstanceQuery.Order order(String value) {
        if (!ORDERS.contains(value)) {
            throw RejectedRequestException.badRequest("Unknown order '" + value + "'", "orders", ORDERS);
        }
        return InstanceQuery.Order.fromLabel(value);
    }
}
