package dev.durable.json;

import java.lang.reflect.Type;
import org.jspecify.annotations.Nullable;

/**
 * Turns states, results and signal payloads into JSON text and back. The engine stores what {@link #write} returns
 * as {@code jsonb}.
 */
public interface JsonCodec {

    /**
     * JSON text for {@code value} ({@code "null"} for {@code null}).
     *
     * @throws JsonCodecException if the value cannot be serialized
     */
    String write(@Nullable Object value);

    /**
     * Reads {@code json} as {@code type}.
     *
     * @throws JsonCodecException if the text cannot be read as that type
     */
    @Nullable Object read(String json, Type type);

    /**
     * Checks that {@code json}, which {@link #write} just returned for a value, reads back as {@code type}: a value
     * that would be stored but could not be read again is refused before anything is stored. By default reads it.
     *
     * @throws JsonCodecException naming the type and why it would not read back
     */
    default void checkReadsBack(String json, Type type) {
        read(json, type);
    }

    /**
     * Checks, once at startup, that values of {@code type} can be read at all (for example that the type can be
     * constructed), so that a machine whose state type cannot be read fails at startup, not at its first step. By
     * default checks nothing.
     *
     * @throws JsonCodecException naming the type and why it cannot be read
     */
    default void checkReadable(Type type) {
    }
}
