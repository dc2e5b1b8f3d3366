package dev.durable.sample.report;

import java.time.Instant;
import java.util.Map;

/**
 * What one report instance found: the orders by status (all time) when it ran.
 *
 * @param countedAt when the orders were counted
 * @param orders    the instances of the machine {@code order} (not their lines) by status, every status present, e.g.
 *                  {@code {"runnable": 0, "executing": 0, "awaiting_signal": 4, "suspended": 0, "done": 173,
 *                  "failed": 2, "cancelled": 1}}
 */
public record OrderReport(Instant countedAt, Map<String, Long> orders) {
}
