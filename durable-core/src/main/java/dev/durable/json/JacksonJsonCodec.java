package dev.durable.json;

import java.lang.reflect.Type;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link JsonCodec} on a Jackson 3 {@link JsonMapper}. The Spring Boot starter passes the application's own
 * mapper, so its modules and settings apply to states and payloads.
 */
public final class JacksonJsonCodec implements JsonCodec {

    private final JsonMapper mapper;

    public JacksonJsonCodec(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper must not be null");
    }

    /** A codec on a plain {@link JsonMapper} with Jackson's defaults. */
    public JacksonJsonCodec() {
        this(JsonMapper.builder().build());
    }

    @Override
    public String write(@Nullable Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JacksonException e) {
            throw new JsonCodecException("Cannot write " + describe(value) + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public @Nullable Object read(String json, Type type) {
        try {
            return mapper.readValue(json, mapper.getTypeFactory().constructType(type));
        } catch (JacksonException e) {
            throw new JsonCodecException("Cannot read JSON as " + type.getTypeName() + ": " + e.getOriginalMessage(), e);
        }
    }

    private static String describe(@Nullable Object value) {
        return value == null ? "null" : "a " + value.getClass().getName();
    }
}
