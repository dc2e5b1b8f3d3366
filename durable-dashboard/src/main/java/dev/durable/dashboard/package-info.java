/**
 * The durable dashboard: pages served by the application under {@code durable.dashboard.path}, and the JSON they
 * read from {@link dev.durable.dashboard.DashboardController}, built on the application's
 * {@link dev.durable.DurableClient} (docs/DESIGN.md, "Dashboard").
 */
@NullMarked
package dev.durable.dashboard;

import org.jspecify.annotations.NullMarked;
