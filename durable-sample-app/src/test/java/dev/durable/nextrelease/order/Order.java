package dev.durable.nextrelease.order;

import dev.durable.sample.order.Line;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The sample's {@code Order} after the change the walkthrough deploys: {@code reservation} renamed
 * {@code reservationId}. Everything else is as in the sample.
 *
 * @param reservationId the reservations of its lines, one per line in order, joined by commas
 */
public record Order(long customerId, List<Line> lines, long amountCents, @Nullable String reservationId,
        @Nullable String paymentId, @Nullable String tracking) {

    public Order {
        lines = List.copyOf(lines);
    }

    Order reserved(String reservationId) {
        return new Order(customerId, lines, amountCents, reservationId, paymentId, tracking);
    }

    Order paid(String paymentId) {
        return new Order(customerId, lines, amountCents, reservationId, paymentId, tracking);
    }
}
