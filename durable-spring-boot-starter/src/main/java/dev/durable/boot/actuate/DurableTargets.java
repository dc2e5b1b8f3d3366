package dev.durable.boot.actuate;

import dev.durable.DurableClient;
import dev.durable.Target;
import dev.durable.TargetCheck;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The node's targets (docs/DESIGN.md, "Targets") and what their last check found, which the meters and the health
 * indicator read without a query. The check runs on a thread of its own, {@code durable-targets}, every
 * {@code durable.metrics.queue-depth-refresh-interval}, as one statement for all targets, from the start of the
 * application context to its stop; with no target there is no thread and no statement.
 */
public final class DurableTargets implements SmartLifecycle, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DurableTargets.class);

    private final Supplier<DurableClient> client;
    private final List<Target> targets;
    private final Duration interval;
    private volatile @Nullable Checked last;
    private @Nullable ScheduledExecutorService checker;

    /** What one check found, and when. */
    public record Checked(Instant at, List<TargetCheck> checks) {

        public Checked {
            checks = List.copyOf(checks);
        }

        /** The checks of the targets that have breaches. */
        public List<TargetCheck> breached() {
            return checks.stream().filter(TargetCheck::breached).toList();
        }
    }

    /**
     * @param client   where the targets are checked, looked up at the first check (the engine is built with the meters
     *                 that read these targets, so it cannot be passed directly)
     * @param targets  the targets, each once
     * @param interval how often they are checked in the background
     */
    public DurableTargets(Supplier<DurableClient> client, List<Target> targets, Duration interval) {
        this.client = client;
        this.targets = List.copyOf(targets);
        this.interval = interval;
    }

    /** The targets, in the order they are checked and reported. */
    public List<Target> targets() {
        return targets;
    }

    /** What the last check found; empty before the first, and always without targets. */
    public Optional<Checked> last() {
        return Optional.ofNullable(last);
    }

    /**
     * Checks every target now and keeps what it found for the meters and the health indicator.
     *
     * @throws RuntimeException when the database cannot answer; the last check is kept
     */
    public Checked check() {
        Checked checked = new Checked(Instant.now(), client.get().checkTargets(targets));
        last = checked;
        return checked;
    }

    /** Starts checking in the background, once, with the context; does nothing without targets. */
    @Override
    public synchronized void start() {
        if (targets.isEmpty() || checker != null) {
            return;
        }
        checker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "durable-targets");
            thread.setDaemon(true);
            return thread;
        });
        checker.scheduleWithFixedDelay(this::checkQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether the background check runs. */
    @Override
    public synchronized boolean isRunning() {
        return checker != null;
    }

    @Override
    public void stop() {
        close();
    }

    /** Stops the background check, and waits a moment for a check under way to end. */
    @Override
    public synchronized void close() {
        if (checker != null) {
            checker.shutdownNow();
            try {
                checker.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            checker = null;
        }
    }

    private void checkQuietly() {
        try {
            check();
        } catch (RuntimeException e) {
            log.debug("Could not check durable's targets; keeping the last check: {}", e.toString());
        }
    }
}
