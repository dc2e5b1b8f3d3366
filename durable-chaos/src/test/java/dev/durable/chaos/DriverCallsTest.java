package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * The driver's calls are made again after any failure the database being away can cause: a cancel runs in a
 * transaction of its own, and while the database restarts it fails to open one (a short chaos run once lost its
 * family driver to that, and reported half the families never started).
 */
class DriverCallsTest {

    private final DriverCalls calls = new DriverCalls();

    @Test
    void aCallThatCouldNotOpenItsTransactionIsMadeAgain() {
        AtomicInteger attempts = new AtomicInteger();
        String result = calls.retrying("cancel", () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new CannotCreateTransactionException("Could not open JDBC Connection for transaction");
            }
            return "cancelled";
        });
        assertThat(result).isEqualTo("cancelled");
        assertThat(attempts).hasValue(2);
        assertThat(calls.failures()).isOne();
    }

    @Test
    void aCallThatFailedWithADatabaseErrorIsMadeAgain() {
        AtomicInteger attempts = new AtomicInteger();
        assertThat(calls.retrying("start", () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new DataAccessResourceFailureException("connection refused");
            }
            return 1;
        })).isOne();
        assertThat(calls.failures()).isOne();
    }

    @Test
    void aBugIsNotMadeAgain() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> calls.retrying("start", () -> {
            attempts.incrementAndGet();
            throw new IllegalArgumentException("bad request");
        })).isInstanceOf(IllegalArgumentException.class);
        assertThat(attempts).hasValue(1);
        assertThat(calls.failures()).isZero();
    }
}
