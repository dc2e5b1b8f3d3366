package dev.durable.sample.order;

/**
 * The result of an order cancelled because its payment did not arrive in time.
 *
 * @param reason      why, for people reading the order
 * @param reservation the reservation given back to the warehouse
 */
public record Cancellation(String reason, String reservation) {
}
