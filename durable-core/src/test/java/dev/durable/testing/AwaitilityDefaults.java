package dev.durable.testing;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.pollinterval.PollInterval;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Awaitility's defaults for the whole test JVM, set once when JUnit's launcher opens its session (registered in
 * {@code META-INF/services}): the first look at a condition at once, then looks 2 ms apart, doubling up to 20 ms.
 *
 * <p>Awaitility's own defaults look first after 100 ms and then every 100 ms, so each of the suite's hundreds of waits
 * cost at least 100 ms, and on average 50 ms more than the awaited thing took, whatever it waited for. A wait's
 * meaning is its condition and its bound ({@code atMost}, {@code during}), which this leaves as written; a wait that
 * needs a pause before its first look says so with its own {@code pollDelay}.
 */
public final class AwaitilityDefaults implements LauncherSessionListener {

    static final Duration FIRST_INTERVAL = Duration.ofMillis(2);
    static final Duration MAX_INTERVAL = Duration.ofMillis(20);

    /** 2 ms, 4, 8, 16, then 20 ms: a condition met at once costs nothing, a slow one no more than a look per 20 ms. */
    static final PollInterval DOUBLING = (pollCount, previous) -> {
        Duration next = pollCount <= 1 ? FIRST_INTERVAL : previous.multipliedBy(2);
        return next.compareTo(MAX_INTERVAL) > 0 ? MAX_INTERVAL : next;
    };

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        Awaitility.setDefaultPollDelay(Duration.ZERO);
        Awaitility.setDefaultPollInterval(DOUBLING);
    }
}
