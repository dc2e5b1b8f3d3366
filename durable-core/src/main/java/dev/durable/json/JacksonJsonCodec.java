package dev.durable.json;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.DeserializationProblemHandler;
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
 * <p>{@link #bind} reports the stored properties a read skips as unknown (docs/DESIGN.md, "Lossy states"): Jackson
 * asks a problem handler about each unknown property before it applies
 * {@link DeserializationFeature#FAIL_ON_UNKNOWN_PROPERTIES}, and this codec's readers carry one that, during a
 * {@code bind} on the same thread, notes the property's path and skips its value. So the loss is found by the read
 * the step makes anyway, at no cost when nothing is unknown, and every dropped property is found, not just the first.
 * What the type keeps by its own declaration is not reported: a {@code @JsonAnySetter}, a map or tree property, and
 * what it declares it ignores ({@code @JsonIgnoreProperties(ignoreUnknown = true)}, named ignored properties,
 * {@code @JsonIgnore}): Jackson skips those without asking, and the author said so. A mapper that fails on unknown
 * properties still fails.
 *
 * <p>What can be worked out once per type is cached: the reader of each type.
 */
public final class JacksonJsonCodec implements JsonCodec {

    private static final String EMPTY_BEAN_HINT = "; Jackson sees no properties of it, so its data would be lost:"
            + " give its fields getters, make them public, or annotate them with @JsonProperty";

    private final JsonMapper mapper;
    private final ObjectWriter writer;
    private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();
    /**
     * What the mapper writes for {@code null} (a step's {@code done()} without a result, every time), written once:
     * a mapper cannot change after it is built, and a generator per null showed as about 5 % of a no-op drain's JVM
     * samples (docs/PERFORMANCE.md, "The cost of a step").
     */
    private final String nullJson;

    public JacksonJsonCodec(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper must not be null");
        this.writer = mapper.writer().with(SerializationFeature.FAIL_ON_EMPTY_BEANS);
        this.nullJson = writer.writeValueAsString(null);
    }

    /** A codec on a plain {@link JsonMapper} with Jackson's defaults. */
    public JacksonJsonCodec() {
        this(JsonMapper.builder().build());
    }

    @Override
    public String write(@Nullable Object value) {
        if (value == null) {
            return nullJson;
        }
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
            throw unreadable(type, e);
        }
    }

    @Override
    public Binding bind(String json, Type type) {
        DroppedProperties dropped = new DroppedProperties();
        DroppedProperties outer = DroppedProperties.COLLECTING.get();
        DroppedProperties.COLLECTING.set(dropped);
        Object value;
        try {
            value = reader(type).readValue(json);
        } catch (JacksonException e) {
            throw unreadable(type, e);
        } finally {
            if (outer == null) {
                DroppedProperties.COLLECTING.remove();
            } else {
                DroppedProperties.COLLECTING.set(outer);
            }
        }
        return new Binding(value, dropped.isEmpty() ? List.of() : dropped.paths(json, value, mapper));
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
        return readers.computeIfAbsent(type, t -> mapper.readerFor(mapper.getTypeFactory().constructType(t))
                .withHandler(DroppedProperties.HANDLER));
    }

    /**
     * Why JSON does not read as {@code type}, with where in it when Jackson says: {@code Cannot read JSON as
     * com.shop.Payment (at $.amountCents): Cannot map `null` into type `long` ...}, so that a refused signal or an
     * unreadable state names the property, which Jackson's own message leaves out.
     */
    private static JsonCodecException unreadable(Type type, JacksonException e) {
        StringBuilder path = new StringBuilder("$");
        for (JacksonException.Reference reference : e.getPath()) {
            if (reference.getPropertyName() != null) {
                path.append('.').append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return new JsonCodecException("Cannot read JSON as " + type.getTypeName()
                + (path.length() > 1 ? " (at " + path + ")" : "") + ": " + e.getOriginalMessage(), e);
    }

    private static String describe(@Nullable Object value) {
        return value == null ? "null" : "a " + value.getClass().getName();
    }

    /**
     * The stored properties one {@link #bind} skips. Jackson's problem handlers belong to a reader, which is shared and
     * cached per type, so the handler finds the bind it serves through a thread-local: outside a bind it handles
     * nothing, and Jackson goes on as it would without it.
     *
     * <p>Where a property was met, the parser says exactly when the value is read straight from the stored text. But
     * Jackson reads some values from a buffer of their tokens instead (the unknown properties of a record or another
     * type built through its constructor are buffered and replayed once it is built, a polymorphic value's properties
     * before its type id), and a buffer's parser knows its place only approximately. Those properties are located
     * afterwards, only when a bind lost something: by walking the stored tree next to the value's own, for the stored
     * properties of that name the value lacks.
     */
    private static final class DroppedProperties {

        static final ThreadLocal<@Nullable DroppedProperties> COLLECTING = new ThreadLocal<>();

        static final DeserializationProblemHandler HANDLER = new DeserializationProblemHandler() {
            @Override
            public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser,
                    ValueDeserializer<?> deserializer, Object beanOrClass, String propertyName) {
                DroppedProperties dropped = COLLECTING.get();
                if (dropped == null || context.isEnabled(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)) {
                    return false; // not a bind, or the mapper fails on unknown properties: Jackson decides
                }
                // A dropped null held nothing: the type without the property reads the same (docs/DESIGN.md,
                // "Lossy states").
                if (parser.currentToken() != JsonToken.VALUE_NULL) {
                    dropped.add(propertyName, parser == context.getParser() ? path(parser) : null);
                }
                parser.skipChildren();
                return true;
            }
        };

        // Allocated at the first loss: a bind that loses nothing, the case of every step, allocates nothing here.
        /** Paths of properties met in the stored text itself. */
        private List<String> exact = List.of();
        /** Names of properties met in a buffer, located afterwards. */
        private Set<String> buffered = Set.of();

        void add(String name, @Nullable String path) {
            if (path != null) {
                if (exact.isEmpty()) {
                    exact = new ArrayList<>(2);
                }
                exact.add(path);
            } else {
                if (buffered.isEmpty()) {
                    buffered = new LinkedHashSet<>(2);
                }
                buffered.add(name);
            }
        }

        boolean isEmpty() {
            return exact.isEmpty() && buffered.isEmpty();
        }

        /** Every dropped path, in the order of the stored text (the exact ones and the located ones merged). */
        List<String> paths(String json, @Nullable Object value, JsonMapper mapper) {
            if (buffered.isEmpty()) {
                return exact;
            }
            Set<String> all = new LinkedHashSet<>();
            try {
                JsonNode stored = mapper.readTree(json);
                JsonNode kept = mapper.valueToTree(value);
                Set<String> exactOnes = new LinkedHashSet<>(exact);
                Set<String> located = new LinkedHashSet<>();
                locate(stored, kept, "$", buffered, located);
                // Stored order: every dropped path the walk meets, whether the parser or the walk found it.
                List<String> inOrder = new ArrayList<>();
                collectInOrder(stored, "$", exactOnes, located, inOrder);
                all.addAll(inOrder);
                all.addAll(exact);
                all.addAll(located);
            } catch (RuntimeException e) {
                all.addAll(exact);
            }
            for (String name : buffered) {
                if (all.stream().noneMatch(path -> path.endsWith("." + name))) {
                    all.add("$.." + name); // somewhere the walk could not follow: the name, at any depth
                }
            }
            return List.copyOf(all);
        }

        /** The stored properties named in {@code names} that {@code kept} lacks where {@code stored} has them. */
        private static void locate(JsonNode stored, @Nullable JsonNode kept, String path, Set<String> names,
                Set<String> found) {
            if (kept == null) {
                return;
            }
            if (stored.isObject() && kept.isObject()) {
                for (Map.Entry<String, JsonNode> property : stored.properties()) {
                    String at = path + "." + property.getKey();
                    JsonNode keptValue = kept.get(property.getKey());
                    if (keptValue == null) {
                        if (names.contains(property.getKey()) && !property.getValue().isNull()) {
                            found.add(at);
                        }
                    } else {
                        locate(property.getValue(), keptValue, at, names, found);
                    }
                }
            } else if (stored.isArray() && kept.isArray()) {
                for (int k = 0; k < Math.min(stored.size(), kept.size()); k++) {
                    locate(stored.get(k), kept.get(k), path + "[" + k + "]", names, found);
                }
            }
        }

        private static void collectInOrder(JsonNode stored, String path, Set<String> exact, Set<String> located,
                List<String> out) {
            if (exact.contains(path) || located.contains(path)) {
                out.add(path);
                return;
            }
            if (stored.isObject()) {
                for (Map.Entry<String, JsonNode> property : stored.properties()) {
                    collectInOrder(property.getValue(), path + "." + property.getKey(), exact, located, out);
                }
            } else if (stored.isArray()) {
                for (int k = 0; k < stored.size(); k++) {
                    collectInOrder(stored.get(k), path + "[" + k + "]", exact, located, out);
                }
            }
        }

        /**
         * The path of the property whose value the parser is at, such as {@code $.lines[2].note}. At the start of an
         * object or array value the parser's context is already the value's own, so the walk starts at its parent.
         */
        private static String path(JsonParser parser) {
            TokenStreamContext context = parser.streamReadContext();
            JsonToken token = parser.currentToken();
            if ((token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) && context.getParent() != null) {
                context = context.getParent();
            }
            List<String> segments = new ArrayList<>();
            for (; context != null && !context.inRoot(); context = context.getParent()) {
                segments.add(context.inArray() ? "[" + context.getCurrentIndex() + "]" : "." + context.currentName());
            }
            StringBuilder path = new StringBuilder("$");
            for (int k = segments.size() - 1; k >= 0; k--) {
                path.append(segments.get(k));
            }
            return path.toString();
        }
    }
}
