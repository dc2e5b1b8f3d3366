package dev.durable.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The soak's figures by window of time: latencies and counts recorded as they happen, each in the window of the
 * moment it was observed, and the checks of docs/PERFORMANCE.md ("The soak") between the first and the last window.
 * Thread-safe. A moment before the first window counts in the first, one after the last in the last.
 */
final class SoakWindows {

    /** A pass or a fail, with the figures it was decided on. */
    record Check(String name, boolean pass, String detail) {

        String line() {
            return "soak check " + name + ": " + (pass ? "PASS" : "FAIL") + " (" + detail + ")";
        }
    }

    private final long beginNanos;
    private final long windowNanos;
    private final Samples[] samples;
    private final AtomicLongArray counts;

    /** {@code windows} windows of {@code windowNanos} each, the first beginning at {@code beginNanos}. */
    SoakWindows(long beginNanos, long windowNanos, int windows) {
        if (windowNanos <= 0 || windows <= 0) {
            throw new IllegalArgumentException("a soak needs at least one window of a positive length, not "
                    + windows + " of " + windowNanos + " ns");
        }
        this.beginNanos = beginNanos;
        this.windowNanos = windowNanos;
        this.samples = new Samples[windows];
        Arrays.setAll(samples, i -> new Samples());
        this.counts = new AtomicLongArray(windows);
    }

    int windows() {
        return samples.length;
    }

    /** The window (0-based) of the moment {@code atNanos}. */
    int windowOf(long atNanos) {
        long index = Math.floorDiv(atNanos - beginNanos, windowNanos);
        return (int) Math.max(0, Math.min(samples.length - 1, index));
    }

    /** One latency sample, observed at {@code atNanos}. */
    void sample(long atNanos, double millis) {
        samples[windowOf(atNanos)].add(millis);
    }

    /** One event, at {@code atNanos}. */
    void event(long atNanos) {
        counts.incrementAndGet(windowOf(atNanos));
    }

    long count(int window) {
        return counts.get(window);
    }

    /** The window's samples, sorted. */
    double[] sorted(int window) {
        return samples[window].sorted();
    }

    /** The nearest-rank percentile of sorted values; NaN when there are none. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(sorted.length * p / 100.0);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** The last window's latency is at most {@code maxRatio} times the first's. */
    static Check latency(String name, double first, double last, double maxRatio) {
        double ratio = last / first;
        boolean pass = first > 0 && !Double.isNaN(last) && ratio <= maxRatio;
        return new Check(name, pass, String.format(Locale.ROOT, "first=%.2f ms last=%.2f ms ratio=%.2f limit=%.2f",
                first, last, ratio, maxRatio));
    }

    /** The last window's rate is within {@code tolerance} (a fraction) of the first's, either way. */
    static Check throughput(String name, double first, double last, double tolerance) {
        double change = last / first - 1;
        boolean pass = first > 0 && last >= first * (1 - tolerance) && last <= first * (1 + tolerance);
        return new Check(name, pass, String.format(Locale.ROOT, "first=%.1f/s last=%.1f/s change=%+.1f%% limit=±%.0f%%",
                first, last, change * 100, tolerance * 100));
    }

    /**
     * Sizes are bounded when the total at the end of the last window is at most {@code maxGrowth} (a fraction) above
     * the total at the end of the run's middle window (window {@code (n - 1) / 2}, 0-based): once retention deletes as
     * much as is written, the second half of the run must not keep growing. Needs at least two windows.
     */
    static Check bounded(String name, long[] totalBytesByWindow, double maxGrowth) {
        int n = totalBytesByWindow.length;
        if (n < 2) {
            return new Check(name, false, "needs at least two windows, has " + n);
        }
        int middle = (n - 1) / 2;
        long atMiddle = totalBytesByWindow[middle];
        long atEnd = totalBytesByWindow[n - 1];
        double growth = atEnd / (double) atMiddle - 1;
        return new Check(name, growth <= maxGrowth, String.format(Locale.ROOT,
                "end of window %d=%.1f MiB end of window %d=%.1f MiB growth=%+.1f%% limit=%.0f%%", middle + 1,
                atMiddle / 1048576.0, n, atEnd / 1048576.0, growth * 100, maxGrowth * 100));
    }

    /** A window's samples: appended under the lock of this object. */
    private static final class Samples {

        private double[] values = new double[1024];
        private int size;

        synchronized void add(double value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        synchronized double[] sorted() {
            double[] copy = Arrays.copyOf(values, size);
            Arrays.sort(copy);
            return copy;
        }
    }
}
