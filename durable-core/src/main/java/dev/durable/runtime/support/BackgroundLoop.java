package dev.durable.runtime.support;

import dev.durable.runtime.jdbc.DatabaseErrors;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A supervised background thread that runs one body over and over: the poller of a queue, the heartbeat, the
 * reaper, the committer. A failing run never kills the thread: it is logged, counted, reported (a database
 * that cannot be reached degrades the node) and retried after an exponential backoff. The loop can be woken early,
 * and started again after a stop (each start runs a new thread with a stop flag of its own, so a thread that
 * outlived its stop's timeout ends after its current run instead of running on beside the new one).
 */
public final class BackgroundLoop {

    /** One run; returns how long to pause before the next (unless woken). */
    @FunctionalInterface
    public interface Body {
        Duration run() throws Exception;
    }

    private static final Logger log = LoggerFactory.getLogger(BackgroundLoop.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);

    private final String name;
    private final Body body;
    private final NodeLifecycle lifecycle;
    private final EngineEvents events;
    private final Duration maxBackoff;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wakeUp = lock.newCondition();
    private boolean woken;
    /** The current run's stop flag and thread; null before the first start. */
    private volatile @Nullable Run current;

    public BackgroundLoop(String name, Body body, NodeLifecycle lifecycle, EngineEvents events, Duration maxBackoff) {
        this.name = name;
        this.body = body;
        this.lifecycle = lifecycle;
        this.events = events;
        this.maxBackoff = maxBackoff;
    }

    /**
     * The pause of a loop that waits for an instant the database holds (the next timer, deadline or schedule tick):
     * until then, plus a millisecond so that it is due when the loop runs (at once if it already is), and never
     * longer than {@code max}, the pause that finds what other nodes added meanwhile. {@code null}: nothing waits.
     */
    public static Duration pauseUntil(@Nullable Long millisUntilNext, Duration max) {
        if (millisUntilNext == null || millisUntilNext >= max.toMillis()) {
            return max;
        }
        return Duration.ofMillis(Math.max(0, millisUntilNext) + 1);
    }

    public void start() {
        Run run = new Run();
        Thread t = new Thread(() -> loop(run), name);
        t.setDaemon(true);
        run.thread = t;
        current = run;
        t.start();
    }

    /** Ends the pause early, so the body runs again now. */
    public void wake() {
        lock.lock();
        try {
            woken = true;
            wakeUp.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Stops after the current run; waits up to {@code timeout} for it. */
    public void stop(Duration timeout) {
        Run run = current;
        if (run == null) {
            return;
        }
        run.stopping = true;
        wake();
        Thread t = run.thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(Math.max(1, timeout.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                log.warn("{} did not stop within {}", name, timeout);
            }
        }
    }

    private void loop(Run run) {
        int failures = 0;
        while (!run.stopping) {
            Duration pause;
            try {
                pause = body.run();
                if (failures > 0) {
                    log.info("{} recovered after {} failed runs", name, failures);
                }
                failures = 0;
                lifecycle.databaseOk(name);
            } catch (Throwable error) {
                failures++;
                events.componentFailed(name, error);
                boolean unreachable = DatabaseErrors.isUnreachable(error);
                if (unreachable) {
                    lifecycle.databaseFailed(name, error);
                }
                pause = backoff(failures);
                if (unreachable && failures > 1) {
                    log.debug("{} still cannot reach the database (run {}); next try in {}", name, failures, pause,
                            error);
                } else if (unreachable) {
                    log.warn("{} cannot reach the database; retrying with backoff: {}", name, error.toString());
                } else {
                    log.error("{} failed (run {}); restarting it in {}", name, failures, pause, error);
                }
            }
            pause(pause, run);
        }
    }

    private Duration backoff(int failures) {
        return backoff(FIRST_BACKOFF, failures, maxBackoff);
    }

    /** {@code first}, doubled with every further failure, at most {@code max}. */
    public static Duration backoff(Duration first, int failures, Duration max) {
        long millis = first.toMillis() << Math.min(failures - 1, 16);
        return Duration.ofMillis(Math.min(millis, max.toMillis()));
    }

    private void pause(Duration pause, Run run) {
        lock.lock();
        try {
            long nanos = pause.toNanos();
            while (!woken && !run.stopping && nanos > 0) {
                nanos = wakeUp.awaitNanos(nanos);
            }
            woken = false;
        } catch (InterruptedException e) {
            // Only stop() ends the loop; an interrupt merely cuts the pause short.
            Thread.interrupted();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** One start of the loop. */
    private static final class Run {
        volatile boolean stopping;
        volatile @Nullable Thread thread;
    }
}
