package dev.durable.runtime.step;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** One signal of an instance's inbox, as snapshotted when its step was picked. */
public record SignalRow(long id, String name, @Nullable String payloadJson, @Nullable String dedupKey,
        Instant createdAt) {
}
