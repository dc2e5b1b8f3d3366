package dev.durable.sample.order;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The state of an order workflow: what was ordered and what has happened to it so far.
 *
 * @param reservation the reservations of its lines, one per line in order, joined by commas
 */
public record Order(long customerId, List<Line> lines, long amountCents, @Nullable String reservation,
        @Nullable String paymentId, @Nullable String tracking) {

    public Order {
        lines = List.copyOf(lines);
    }

    public static Order placed(long customerId, List<Line> lines, long amountCents) {
        return new Order(customerId, lines, amountCents, null, null, null);
    }

    Order reserved(String reservation) {
        return new Order(customerId, lines, amountCents, reservation, paymentId, tracking);
    }

    Order paid(String paymentId) {
        return new Order(customerId, lines, amountCents, reservation, paymentId, tracking);
    }
}
