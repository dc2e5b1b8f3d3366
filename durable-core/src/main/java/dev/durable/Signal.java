package dev.durable;

import java.lang.reflect.Type;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A durable message addressed to one instance, as a step sees it in its {@link Inbox}.
 *
 * <p>The payload is kept as JSON and read into a type of the step's choosing with {@link #payload(Class)}, through
 * the engine's JSON codec. The engine makes the signals a step sees; a test of a step may implement this interface
 * to hand one its own.
 */
public interface Signal {

    /** The signal's row id; ids grow with arrival. */
    long id();

    String name();

    /** The dedup key the sender gave, if any. */
    @Nullable String dedupKey();

    /** When the database stored the signal. */
    Instant createdAt();

    /** The payload as JSON text, {@code null} when the sender sent none. */
    @Nullable String payloadJson();

    /** The payload read as {@code type} with the engine's JSON codec; {@code null} when there is none. */
    default <T> @Nullable T payload(Class<T> type) {
        return type.cast(payload((Type) type));
    }

    /** The payload read as a (possibly generic) {@code type}; {@code null} when there is none. */
    @Nullable Object payload(Type type);
}
