package dev.durable.runtime;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** One signal of an instance's inbox, as snapshotted when its step was picked. */
record SignalRow(long id, String name, @Nullable String payloadJson, @Nullable String dedupKey,
        Instant createdAt) {
}
