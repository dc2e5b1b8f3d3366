package dev.durable.sample.order;

/** One line of an order: a product and how many of it. */
public record Line(String sku, int quantity) {
}
