package dev.durable.chaos;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;

/**
 * How the driver's calls survive the database restarting: a call that failed with a database error (a
 * {@link DataAccessException}, or a {@link TransactionException} from a call that runs in a transaction of its own and
 * could not open one: a cancel while the database is down) is made again, after a pause, until it returns (every call
 * of the driver may be repeated: inserts carry unique keys, signals dedup keys, and a cancel made again answers that it
 * was made before). Counts the repeats.
 */
final class DriverCalls {

    private static final Duration RETRY_PAUSE = Duration.ofMillis(250);
    private static final Duration GIVE_UP = Duration.ofMinutes(5);

    private final AtomicInteger failures = new AtomicInteger();

    /** Runs {@code call} until it returns: a database restart only delays it. */
    <T> T retrying(String what, Supplier<T> call) {
        long deadline = System.nanoTime() + GIVE_UP.toNanos();
        while (true) {
            try {
                return call.get();
            } catch (DataAccessException | TransactionException e) {
                failures.incrementAndGet();
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("Could not " + what + " for " + GIVE_UP, e);
                }
                try {
                    Thread.sleep(RETRY_PAUSE.toMillis()); // pacing: the database is away
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while trying to " + what, interrupted);
                }
            }
        }
    }

    /** How many calls were made again after a database error. */
    int failures() {
        return failures.get();
    }
}
