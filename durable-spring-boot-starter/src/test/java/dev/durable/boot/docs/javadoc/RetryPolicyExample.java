package dev.durable.boot.docs.javadoc;

import dev.durable.machine.RetryPolicy;
import java.time.Duration;

/** The javadoc of {@link RetryPolicy}: a policy built in Java. */
final class RetryPolicyExample {

    private RetryPolicyExample() {
    }

    static class CardDeclinedException extends RuntimeException {
    }

    static RetryPolicy payments() {
        RetryPolicy payments = RetryPolicy.builder()
                .maxAttempts(5)
                .delay(Duration.ofSeconds(2))
                .nonRetryable(CardDeclinedException.class)
                .build();
        return payments;
    }
}
