/**
 * Internal: what time makes happen. {@code AwaitDeadlines} fires the deadlines of parked instances
 * ({@code DeadlineRepository}, docs/DESIGN.md, "Timers and deadlines"); {@code RecurringSchedules} starts the due ticks
 * of schedules ({@code ScheduleRepository}, {@code ScheduleTicks}, "Recurring schedules"). Its classes may be public
 * for the sibling packages; none is API, and {@code ArchitectureTest} keeps everything outside
 * {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.time;

import org.jspecify.annotations.NullMarked;
