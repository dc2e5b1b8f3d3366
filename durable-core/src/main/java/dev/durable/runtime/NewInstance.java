package dev.durable.runtime;

import org.jspecify.annotations.Nullable;

/**
 * One row to insert into {@code durable_instance}.
 *
 * @param uniqueScope the scope as a PostgreSQL array literal of status labels, e.g. {@code {runnable,executing}}
 */
record NewInstance(String machine, int version, String step, String stateJson, String queue, short priority,
        @Nullable String partitionKey, long delayMillis, @Nullable String uniqueKey, String uniqueScope,
        @Nullable String correlationKey) {

    /** A row without a correlation key. */
    NewInstance(String machine, int version, String step, String stateJson, String queue, short priority,
            @Nullable String partitionKey, long delayMillis, @Nullable String uniqueKey, String uniqueScope) {
        this(machine, version, step, stateJson, queue, priority, partitionKey, delayMillis, uniqueKey, uniqueScope,
                null);
    }
}
