package dev.durable.runtime.step;

import dev.durable.Signal;
import dev.durable.json.JsonCodec;
import java.lang.reflect.Type;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** A {@link Signal} of a step's inbox: a row the pick read, with the codec its payload is read with. */
public record InboxSignal(long id, String name, @Nullable String payloadJson, @Nullable String dedupKey,
        Instant createdAt, JsonCodec codec) implements Signal {

    public InboxSignal(SignalRow row, JsonCodec codec) {
        this(row.id(), row.name(), row.payloadJson(), row.dedupKey(), row.createdAt(), codec);
    }

    @Override
    public @Nullable Object payload(Type type) {
        return payloadJson == null ? null : codec.read(payloadJson, type);
    }

    /** The signal without its payload, which may hold personal data. */
    @Override
    public String toString() {
        return "Signal[id=" + id + ", name=" + name + (dedupKey == null ? "" : ", dedupKey=" + dedupKey) + "]";
    }
}
