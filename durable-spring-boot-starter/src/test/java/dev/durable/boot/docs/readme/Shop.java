package dev.durable.boot.docs.readme;

import org.jspecify.annotations.Nullable;

/** The application types the examples of README.md take for granted. */
final class Shop {

    private Shop() {
    }

    record Order(String customer, String sku, @Nullable String reservation, @Nullable Payment payment) {

        Order reserved(String reservation) {
            return new Order(customer, sku, reservation, payment);
        }

        Order paid(@Nullable Payment payment) {
            return new Order(customer, sku, reservation, payment);
        }
    }

    record Payment(String paymentId, long amountCents) {
    }

    record Webhook(String eventId) {
    }

    interface Warehouse {
        String reserve(String sku);
    }

    interface Carrier {
        String ship(Order order);
    }
}
