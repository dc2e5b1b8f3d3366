package dev.durable.sample.report;

import java.time.Instant;
import java.util.Map;

/**
 * What one report instance found: the orders by status (all time) when it ran.
 *
 * @param countedAt when the orders were counted
 * @param orders    the order instances by status, e.g. {@code {"done": 173, "awaiting_signal": 4}}
 */
public record OrderReport(Instant countedAt, Map<String, Long> orders) {
}
