package dev.durable.runtime;

/**
 * How this node works one queue.
 *
 * @param concurrency how many of the queue's steps this node runs at once; 0 to run none (starts and signals for
 *                    the queue still work, other nodes run them)
 * @param batchSize   the most rows one pick claims; picks never claim more than the free slots
 */
public record QueueSettings(int concurrency, int batchSize) {

    public static final int DEFAULT_CONCURRENCY = 10;
    public static final int DEFAULT_BATCH_SIZE = 50;

    public static QueueSettings defaults() {
        return new QueueSettings(DEFAULT_CONCURRENCY, DEFAULT_BATCH_SIZE);
    }

    public static QueueSettings concurrency(int concurrency) {
        return new QueueSettings(concurrency, DEFAULT_BATCH_SIZE);
    }
}
