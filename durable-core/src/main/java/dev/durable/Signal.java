package dev.durable;

import dev.durable.json.JsonCodec;
import java.lang.reflect.Type;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A durable message addressed to one instance, as a step sees it in its {@link Inbox}.
 *
 * <p>The payload is kept as JSON and read into a type of the step's choosing with {@link #payload(Class)}.
 */
public final class Signal {

    private final long id;
    private final String name;
    private final @Nullable String payloadJson;
    private final @Nullable String dedupKey;
    private final Instant createdAt;
    private final JsonCodec codec;

    public Signal(long id, String name, @Nullable String payloadJson, @Nullable String dedupKey, Instant createdAt,
            JsonCodec codec) {
        this.id = id;
        this.name = name;
        this.payloadJson = payloadJson;
        this.dedupKey = dedupKey;
        this.createdAt = createdAt;
        this.codec = codec;
    }

    /** The signal's row id; ids grow with arrival. */
    public long id() {
        return id;
    }

    public String name() {
        return name;
    }

    /** The dedup key the sender gave, if any. */
    public @Nullable String dedupKey() {
        return dedupKey;
    }

    /** When the database stored the signal. */
    public Instant createdAt() {
        return createdAt;
    }

    /** The payload as JSON text, {@code null} when the sender sent none. */
    public @Nullable String payloadJson() {
        return payloadJson;
    }

    /** The payload read as {@code type} with the engine's JSON codec; {@code null} when there is none. */
    public <T> @Nullable T payload(Class<T> type) {
        return type.cast(payload((Type) type));
    }

    /** The payload read as a (possibly generic) {@code type}; {@code null} when there is none. */
    public @Nullable Object payload(Type type) {
        return payloadJson == null ? null : codec.read(payloadJson, type);
    }

    @Override
    public String toString() {
        return "Signal[id=" + id + ", name=" + name + (dedupKey == null ? "" : ", dedupKey=" + dedupKey) + "]";
    }
}
