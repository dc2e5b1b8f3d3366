package dev.durable.firstrelease.order;

import org.jspecify.annotations.Nullable;

/** The state of an order of the first release: one product, and what has happened to it so far. */
public record Order(long customerId, String sku, int quantity, long amountCents, @Nullable String reservation,
        @Nullable String paymentId, @Nullable String tracking) {

    public static Order placed(long customerId, String sku, int quantity, long amountCents) {
        return new Order(customerId, sku, quantity, amountCents, null, null, null);
    }

    Order reserved(String reservation) {
        return new Order(customerId, sku, quantity, amountCents, reservation, paymentId, tracking);
    }

    Order paid(String paymentId) {
        return new Order(customerId, sku, quantity, amountCents, reservation, paymentId, tracking);
    }
}
