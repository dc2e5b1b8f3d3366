package dev.durable.runtime.queue;

import java.util.concurrent.TimeUnit;

/**
 * How many claimed rows a queue may hold waiting for a slot (docs/DESIGN.md, "The life of a step"): as many as its
 * slots get through in about {@link #HORIZON_NANOS}, from a moving average of how long its steps run in user code, at
 * most a batch. Steps of microseconds get a batch; steps of {@code concurrency} × 10 ms or more get none, and then a
 * claim is a slot; until the first step is timed there is none. Not thread-safe: its {@link QueueDecider} owns it.
 */
final class Prefetch {

    /** How long, on average, a prefetched row may wait for a slot. */
    static final long HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The weight of the latest step in the moving average of step durations. */
    private static final double WEIGHT = 0.05;

    private final int concurrency;
    private final int batchSize;
    /** The moving average of the steps' time in user code, in nanoseconds; negative until the first. */
    private double meanStepNanos = -1;
    private long timedSteps;

    Prefetch(int concurrency, int batchSize) {
        this.concurrency = concurrency;
        this.batchSize = batchSize;
    }

    /** Adds a step's time in user code. */
    void timed(long nanos) {
        // The mean of the first steps, then a moving average: a slow first step (a cold JVM) soon counts for little.
        timedSteps++;
        double weight = Math.max(WEIGHT, 1.0 / timedSteps);
        meanStepNanos = meanStepNanos < 0 ? nanos : meanStepNanos + weight * (nanos - meanStepNanos);
    }

    /** How many rows may wait for a slot now. */
    int rows() {
        if (meanStepNanos < 0) {
            return 0;
        }
        double rows = concurrency * (double) HORIZON_NANOS / Math.max(meanStepNanos, 1.0);
        return (int) Math.min(batchSize, rows);
    }
}
