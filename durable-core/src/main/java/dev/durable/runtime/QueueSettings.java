package dev.durable.runtime;

import java.util.Objects;

/**
 * How this node works one queue.
 *
 * @param concurrency how many of the queue's steps this node runs at once; 0 to run none (starts and signals for
 *                    the queue still work, other nodes run them)
 * @param batchSize   the most rows one pick claims, and the most claimed rows that may wait for a slot; how many wait
 *                    follows the measured time of the queue's steps (about 10 ms of work), so slow steps claim no
 *                    more rows than there are free slots
 * @param limits      the queue's limits across all nodes (docs/DESIGN.md, "Cluster-wide limits"); none by default
 */
public record QueueSettings(int concurrency, int batchSize, ClusterLimits limits) {

    public QueueSettings {
        Objects.requireNonNull(limits, "limits must not be null (ClusterLimits.NONE for none)");
    }

    /** A queue without cluster-wide limits. */
    public QueueSettings(int concurrency, int batchSize) {
        this(concurrency, batchSize, ClusterLimits.NONE);
    }

    /** These settings with the queue's cluster-wide limits. */
    public QueueSettings withLimits(ClusterLimits limits) {
        return new QueueSettings(concurrency, batchSize, limits);
    }

    /**
     * Ten steps at once: a queue's concurrency says how many of the user's steps may run at once against the user's
     * own systems (Spring Boot's connection pool holds ten connections by default), not what the engine can run;
     * the prefetch keeps ten slots busy (docs/PERFORMANCE.md, "2026-11-26: no refill, picks of 256").
     */
    public static final int DEFAULT_CONCURRENCY = 10;
    /**
     * 256 rows: with fast steps a pick claims this many and their outcomes commit together, which drained one-step
     * instances faster than picks of 50 or 128 at 10, 50 and 256 slots; slow steps are not affected
     * (docs/PERFORMANCE.md, "2026-11-26: no refill, picks of 256").
     */
    public static final int DEFAULT_BATCH_SIZE = 256;

    public static QueueSettings defaults() {
        return new QueueSettings(DEFAULT_CONCURRENCY, DEFAULT_BATCH_SIZE);
    }

    public static QueueSettings concurrency(int concurrency) {
        return new QueueSettings(concurrency, DEFAULT_BATCH_SIZE);
    }
}
