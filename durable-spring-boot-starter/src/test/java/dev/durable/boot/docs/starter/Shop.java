package dev.durable.boot.docs.starter;

import org.jspecify.annotations.Nullable;

/** The application types the examples of the starter's README take for granted. */
final class Shop {

    private Shop() {
    }

    record Order(long customerId, String sku, @Nullable String reservation, @Nullable Payment payment) {

        static Order placed(long customerId, String sku) {
            return new Order(customerId, sku, null, null);
        }

        Order reserved(String reservation) {
            return new Order(customerId, sku, reservation, payment);
        }

        Order paid(@Nullable Payment payment) {
            return new Order(customerId, sku, reservation, payment);
        }
    }

    record Payment(String paymentId, long amountCents) {
    }

    record Shipment(String tracking) {
    }

    interface Warehouse {
        /** A reservation id; the instance id makes a re-run reserve once. */
        String reserve(long instanceId, String sku);
    }

    /** The warehouse has none of {@code sku} left. */
    static class SoldOutException extends RuntimeException {

        private final String sku;

        SoldOutException(String sku) {
            super(sku + " is sold out");
            this.sku = sku;
        }

        String sku() {
            return sku;
        }
    }

    interface Carrier {
        /** A tracking number; the instance id makes a re-run ship once. */
        String ship(long instanceId, Order order);
    }
}
