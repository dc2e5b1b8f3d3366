package dev.durable.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SoakWindowsTest {

    private static final long MINUTE = 60_000_000_000L;

    @Test
    void samplesAndCountsGoToTheWindowOfTheirMoment() {
        SoakWindows windows = new SoakWindows(1_000, MINUTE, 3);
        windows.sample(1_000, 5);
        windows.sample(1_000 + MINUTE - 1, 1);
        windows.sample(1_000 + MINUTE, 7);
        windows.sample(1_000 + 2 * MINUTE + 3, 9);
        windows.event(1_000 + MINUTE);
        windows.event(1_000 + MINUTE + 1);

        assertThat(windows.sorted(0)).containsExactly(1, 5);
        assertThat(windows.sorted(1)).containsExactly(7);
        assertThat(windows.sorted(2)).containsExactly(9);
        assertThat(windows.count(0)).isZero();
        assertThat(windows.count(1)).isEqualTo(2);
    }

    @Test
    void momentsOutsideTheRunCountInTheFirstOrTheLastWindow() {
        SoakWindows windows = new SoakWindows(MINUTE, MINUTE, 2);
        windows.sample(0, 1);
        windows.sample(10 * MINUTE, 2);

        assertThat(windows.sorted(0)).containsExactly(1);
        assertThat(windows.sorted(1)).containsExactly(2);
    }

    @Test
    void samplesFromManyThreadsAreAllKept() throws Exception {
        SoakWindows windows = new SoakWindows(0, MINUTE, 1);
        int threads = 8;
        int each = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < each; i++) {
                    windows.sample(1, i);
                    windows.event(1);
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : done) {
            future.get();
        }
        pool.shutdown();

        assertThat(windows.sorted(0)).hasSize(threads * each);
        assertThat(windows.count(0)).isEqualTo(threads * each);
    }

    @Test
    void percentilesAreNearestRank() {
        double[] sorted = new double[100];
        for (int i = 0; i < 100; i++) {
            sorted[i] = i + 1;
        }
        assertThat(SoakWindows.percentile(sorted, 50)).isEqualTo(50);
        assertThat(SoakWindows.percentile(sorted, 99)).isEqualTo(99);
        assertThat(SoakWindows.percentile(new double[] {3}, 99)).isEqualTo(3);
        assertThat(SoakWindows.percentile(new double[0], 50)).isNaN();
    }

    @Test
    void latencyPassesUpToTheRatioAndNotBeyond() {
        assertThat(SoakWindows.latency("p99", 10, 15, 1.5).pass()).isTrue();
        assertThat(SoakWindows.latency("p99", 10, 15.1, 1.5).pass()).isFalse();
        assertThat(SoakWindows.latency("p99", 10, Double.NaN, 1.5).pass()).isFalse();
        assertThat(SoakWindows.latency("p99", 10, 15.1, 1.5).line()).contains("FAIL", "ratio=1.51");
    }

    @Test
    void throughputPassesWithinTheToleranceEitherWay() {
        assertThat(SoakWindows.throughput("rate", 100, 110, 0.10).pass()).isTrue();
        assertThat(SoakWindows.throughput("rate", 100, 90, 0.10).pass()).isTrue();
        assertThat(SoakWindows.throughput("rate", 100, 89, 0.10).pass()).isFalse();
        assertThat(SoakWindows.throughput("rate", 100, 111, 0.10).pass()).isFalse();
    }

    @Test
    void sizesAreBoundedWhenTheSecondHalfGrowsLessThanTheLimit() {
        long mib = 1 << 20;
        // Windows 1..4: the middle is window 2 (index 1).
        assertThat(SoakWindows.bounded("size", new long[] {50 * mib, 100 * mib, 104 * mib, 109 * mib}, 0.10).pass())
                .isTrue();
        assertThat(SoakWindows.bounded("size", new long[] {50 * mib, 100 * mib, 105 * mib, 111 * mib}, 0.10).pass())
                .isFalse();
        SoakWindows.Check one = SoakWindows.bounded("size", new long[] {mib}, 0.10);
        assertThat(one.pass()).isFalse();
        assertThat(one.detail()).contains("at least two windows");
    }

    @Test
    void aRunWithoutWindowsIsRefused() {
        assertThatThrownBy(() -> new SoakWindows(0, MINUTE, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one window");
        assertThatThrownBy(() -> new SoakWindows(0, 0, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive length");
    }
}
