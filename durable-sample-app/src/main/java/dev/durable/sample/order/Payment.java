package dev.durable.sample.order;

/** The payload of the {@code payment} signal, from the payment provider's webhook. */
public record Payment(String paymentId, long amountCents) {
}
