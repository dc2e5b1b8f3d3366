/**
 * A sample order workflow on durable: place an order, reserve stock, wait for the payment webhook, ship (through
 * a flaky carrier, retried with exponential backoff), done.
 */
@NullMarked
package dev.durable.sample;

import org.jspecify.annotations.NullMarked;
