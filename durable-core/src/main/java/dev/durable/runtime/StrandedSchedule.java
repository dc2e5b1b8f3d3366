package dev.durable.runtime;

import java.time.Instant;

/**
 * A due recurring schedule whose machine no live node runs (any version): its ticks wait, unfired, until a node
 * with the machine starts, and then follow the schedule's miss policy. Found by every node's reaper run; see
 * {@link DurableEngine#strandedSchedules()}.
 *
 * @param dueSince the tick the schedule has been waiting to fire since
 */
public record StrandedSchedule(String name, String machine, Instant dueSince) {
}
