package dev.durable;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A read-only view of one instance row, for operators and tests.
 *
 * <p>{@code stateJson} and {@code resultJson} are the stored JSON; they may hold personal data, so do not log or
 * expose them without thought.
 */
public record DurableInstance(
        long id,
        String machine,
        int version,
        String step,
        InstanceStatus status,
        String queue,
        short priority,
        @Nullable String partitionKey,
        @Nullable String awaits,
        int attempt,
        Instant eligibleAt,
        @Nullable String lastError,
        @Nullable String leaseOwner,
        @Nullable Instant leaseExpiresAt,
        @Nullable String uniqueKey,
        @Nullable String stateJson,
        @Nullable String resultJson,
        Instant createdAt,
        Instant updatedAt) {
}
