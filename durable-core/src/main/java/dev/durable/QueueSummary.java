package dev.durable;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The state of one queue across all nodes, as the database sees it.
 *
 * @param counts              instances per status (every status present, zero included)
 * @param oldestRunnableAge   how long the oldest eligible runnable instance has been waiting; {@code null} if none
 * @param expiredLeases       executing instances whose lease expired and that the reaper has not returned yet
 */
public record QueueSummary(String queue, Map<InstanceStatus, Long> counts, @Nullable Duration oldestRunnableAge,
        long expiredLeases) {

    public QueueSummary {
        counts = Map.copyOf(counts);
    }

    public long count(InstanceStatus status) {
        return counts.getOrDefault(status, 0L);
    }
}
