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
}
