package dev.durable;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The state of one queue across all nodes, as the database sees it.
 *
 * @param counts              instances per status: every status counted is present, zero included (a summary
 *                            without ended ones, {@link DurableClient#summarizeLive()}, has no {@code DONE} and
 *                            no {@code CANCELLED})
 * @param oldestRunnableAge   how long the oldest eligible runnable instance has been waiting; {@code null} if none
 * @param expiredLeases       executing instances whose lease expired and that the reaper has not returned yet
 */
public record QueueSummary(String queue, Map<InstanceStatus, Long> counts, @Nullable Duration oldestRunnableAge,
        long expiredLeases) {

    public QueueSummary {
        counts = Map.copyOf(counts);
    }

    /** The count of {@code status}; 0 if it was not counted. */
    public long count(InstanceStatus status) {
        return counts.getOrDefault(status, 0L);
    }
}
