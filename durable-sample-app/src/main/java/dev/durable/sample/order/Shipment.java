package dev.durable.sample.order;

/** The result of a completed order. */
public record Shipment(String tracking, String reservation, String paymentId) {
}
