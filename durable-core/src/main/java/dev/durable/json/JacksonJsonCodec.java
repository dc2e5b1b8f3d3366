package dev.durable.json;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link JsonCodec} on a Jackson 3 {@link JsonMapper}. The Spring Boot starter passes the application's own
 * mapper, so its modules and settings apply to states and payloads, with one exception: values are written with
 * {@link SerializationFeature#FAIL_ON_EMPTY_BEANS} on (Jackson 3 turns it off by default), because an object
 * Jackson sees no properties of (private fields without getters, say) would otherwise be stored as {@code {}} and
 * its data lost without a word.
 *
 * <p>What can be worked out once per type is cached: the reader of each type.
 */
public final class JacksonJsonCodec implements JsonCodec {

    private static final String EMPTY_BEAN_HINT = "; Jackson sees no properties of it, so its data would be lost:"
            + " give its fields getters, make them public, or annotate them with @JsonProperty";

    private final JsonMapper mapper;
    private final ObjectWriter writer;
    private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

    public JacksonJsonCodec(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper must not be null");
        this.writer = mapper.writer().with(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    }

    /** A codec on a plain {@link JsonMapper} with Jackson's defaults. */
    public JacksonJsonCodec() {
        this(JsonMapper.builder().build());
    }

    @Override
    public String write(@Nullable Object value) {
        try {
            return writer.writeValueAsString(value);
        } catch (InvalidDefinitionException e) {
            String hint = e.getOriginalMessage().startsWith("No serializer found") ? EMPTY_BEAN_HINT : "";
            throw new JsonCodecException("Cannot write " + describe(value) + " as JSON: " + e.getMessage() + hint, e);
        } catch (JacksonException e) {
            throw new JsonCodecException("Cannot write " + describe(value) + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public @Nullable Object read(String json, Type type) {
        try {
            return reader(type).readValue(json);
        } catch (JacksonException e) {
            throw new JsonCodecException("Cannot read JSON as " + type.getTypeName() + ": " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public void checkReadsBack(String json, Type type) {
        try {
            reader(type).readValue(json);
        } catch (JacksonException e) {
            throw new JsonCodecException("its JSON would not read back as " + type.getTypeName() + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads {@code {}} as {@code type} and fails only on what is wrong with the type itself (it cannot be
     * constructed, its properties conflict), not on what an empty object lacks.
     */
    @Override
    public void checkReadable(Type type) {
        JavaType javaType = mapper.getTypeFactory().constructType(type);
        if (javaType.isContainerType() || javaType.isEnumType() || javaType.isPrimitive()
                || javaType.getRawClass().getName().startsWith("java.")) {
            return; // not read from a JSON object of its own properties; Jackson reads these natively
        }
        try {
            reader(type).readValue("{}");
        } catch (InvalidDefinitionException e) {
            throw new JsonCodecException("Jackson cannot read " + type.getTypeName() + ": " + e.getOriginalMessage(),
                    e);
        } catch (MismatchedInputException e) {
            if (e.getOriginalMessage().startsWith("Cannot construct instance")) {
                throw new JsonCodecException("Jackson cannot construct " + type.getTypeName() + ": "
                        + e.getOriginalMessage() + " (give it a constructor Jackson can use: a no-argument one, a"
                        + " record's, or one annotated with @JsonCreator; or compile with -parameters)", e);
            }
            // Otherwise the input was the problem (a missing property, say), not the type.
        } catch (JacksonException e) {
            // The input was the problem, not the type.
        }
    }

    private ObjectReader reader(Type type) {
        return readers.computeIfAbsent(type, t -> mapper.readerFor(mapper.getTypeFactory().constructType(t)));
    }

    private static String describe(@Nullable Object value) {
        return value == null ? "null" : "a " + value.getClass().getName();
    }
}
