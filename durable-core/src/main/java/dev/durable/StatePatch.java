package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one transition changed of an instance's state, as its history records it ({@link HistoryEntry#patch()}): an
 * RFC 6902 JSON Patch from the state stored before the transition to the state it wrote (docs/DESIGN.md, "History",
 * patches). A patch longer than {@code durable.history.patch-max-bytes} is <em>cut</em>: it keeps the operations that
 * fit and ends with a marker, {@code {"op":"cut","bytes":<the whole patch's size>,"operations":<its count>}}, which
 * no RFC 6902 applier accepts, so that nobody applies half a change without noticing.
 *
 * <p>The first state (the one the instance was started with) and the patches of the entries after it rebuild the
 * state at every transition: {@link #replay(JsonNode, List)}.
 *
 * @param operations the patch's operations, in order; for a cut patch, those that fit, without the marker
 * @param cutBytes   for a cut patch, how many bytes of UTF-8 the whole patch would have taken; {@code null} when whole
 * @param cutCount   for a cut patch, how many operations the whole patch had; 0 when whole
 */
public record StatePatch(List<JsonNode> operations, @Nullable Long cutBytes, int cutCount) {

    /** The {@code op} of the marker that ends a cut patch. */
    public static final String CUT = "cut";

    /** Numbers digit for digit, as {@code jsonb} keeps them. */
    private static final JsonMapper TREES = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    public StatePatch {
        operations = List.copyOf(operations);
    }

    /** Whether the patch was cut at the size limit: then it cannot rebuild the state after it. */
    public boolean cut() {
        return cutBytes != null;
    }

    /**
     * Reads a patch as stored (a JSON array of operations, maybe ending with the cut marker).
     *
     * @throws IllegalArgumentException if {@code json} is not a JSON array
     */
    public static StatePatch parse(String json) {
        try {
            return of(TREES.readTree(json));
        } catch (JacksonException e) {
            throw new IllegalArgumentException("A state patch must be a JSON array of operations: "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * The patch {@code array} holds (as {@link #toJson()} writes it: in JSON a patch is its array).
     *
     * @throws IllegalArgumentException if {@code array} is not a JSON array
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static StatePatch of(JsonNode array) {
        if (!array.isArray()) {
            throw new IllegalArgumentException("A state patch must be a JSON array of operations, not " + array);
        }
        List<JsonNode> operations = new ArrayList<>(array.size());
        Long cutBytes = null;
        int cutCount = 0;
        for (JsonNode operation : array) {
            if (CUT.equals(operation.path("op").asString(null))) {
                cutBytes = operation.path("bytes").asLong();
                cutCount = operation.path("operations").asInt();
            } else {
                operations.add(operation);
            }
        }
        return new StatePatch(operations, cutBytes, cutCount);
    }

    /** The patch as stored: its operations, and the cut marker last if it was cut. */
    @JsonValue
    public JsonNode toJson() {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        operations.forEach(array::add);
        if (cutBytes != null) {
            array.add(JsonNodeFactory.instance.objectNode().put("op", CUT).put("bytes", cutBytes)
                    .put("operations", cutCount));
        }
        return array;
    }

    @Override
    public String toString() {
        return toJson().toString();
    }

    /**
     * {@code state} with this patch applied, as RFC 6902 says ({@code add}, {@code remove}, {@code replace},
     * {@code move}, {@code copy}, {@code test}); {@code state} itself is not changed.
     *
     * @throws IllegalStateException    if the patch was cut
     * @throws IllegalArgumentException if an operation does not apply to {@code state}, naming it
     */
    public JsonNode applyTo(JsonNode state) {
        if (cut()) {
            throw new IllegalStateException("This patch was cut at the size limit (the whole one had " + cutCount
                    + " operations, " + cutBytes + " bytes): the state after it cannot be rebuilt from it");
        }
        JsonNode document = state.deepCopy();
        for (JsonNode operation : operations) {
            try {
                document = apply(document, operation);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("Cannot apply " + operation + ": " + e.getMessage(), e);
            }
        }
        return document;
    }

    /**
     * The state after the last of {@code entries}, rebuilt from {@code first}, the state the instance was started
     * with, and the patches of its history from the first entry on (each entry's {@link HistoryEntry#upcastPatch()},
     * then its {@link HistoryEntry#patch()}); an entry without a patch changed nothing. To rebuild the state at the
     * k-th transition, pass the first k entries.
     *
     * @throws IllegalStateException naming the entry, if one of them has a cut patch
     */
    public static JsonNode replay(JsonNode first, List<HistoryEntry> entries) {
        JsonNode state = first;
        for (HistoryEntry entry : entries) {
            for (StatePatch patch : new StatePatch[] {entry.upcastPatch(), entry.patch()}) {
                if (patch == null) {
                    continue;
                }
                if (patch.cut()) {
                    throw new IllegalStateException("The patch of history entry " + entry.id() + " (instance "
                            + entry.instanceId() + ", step '" + entry.step() + "') was cut at the size limit: the"
                            + " state after it cannot be rebuilt from the history");
                }
                state = patch.applyTo(state);
            }
        }
        return state;
    }

    private static JsonNode apply(JsonNode document, JsonNode operation) {
        String op = text(operation, "op");
        String path = text(operation, "path");
        return switch (op) {
            case "add" -> add(document, path, value(operation));
            case "remove" -> remove(document, path);
            case "replace" -> add(remove(document, path), path, value(operation));
            case "move" -> {
                String from = text(operation, "from");
                JsonNode moved = at(document, from);
                yield add(remove(document, from), path, moved);
            }
            case "copy" -> add(document, path, at(document, text(operation, "from")).deepCopy());
            case "test" -> {
                if (!at(document, path).equals(value(operation))) {
                    throw new IllegalArgumentException("the value at '" + path + "' is not the one tested");
                }
                yield document;
            }
            default -> throw new IllegalArgumentException("unknown op '" + op + "'");
        };
    }

    private static JsonNode add(JsonNode document, String path, JsonNode value) {
        if (path.isEmpty()) {
            return value;
        }
        JsonNode parent = at(document, parentOf(path));
        String last = lastOf(path);
        if (parent instanceof ObjectNode object) {
            object.set(last, value);
        } else if (parent instanceof ArrayNode array) {
            int index = last.equals("-") ? array.size() : index(last, array.size() + 1);
            array.insert(index, value);
        } else {
            throw new IllegalArgumentException("'" + parentOf(path) + "' is neither an object nor an array");
        }
        return document;
    }

    private static JsonNode remove(JsonNode document, String path) {
        if (path.isEmpty()) {
            return JsonNodeFactory.instance.nullNode();
        }
        JsonNode parent = at(document, parentOf(path));
        String last = lastOf(path);
        if (parent instanceof ObjectNode object && object.has(last)) {
            object.remove(last);
        } else if (parent instanceof ArrayNode array) {
            array.remove(index(last, array.size()));
        } else {
            throw new IllegalArgumentException("there is no '" + path + "'");
        }
        return document;
    }

    /** The node {@code pointer} (RFC 6901) names in {@code document}. */
    private static JsonNode at(JsonNode document, String pointer) {
        JsonNode node = document;
        if (pointer.isEmpty()) {
            return node;
        }
        for (String token : pointer.substring(1).split("/", -1)) {
            String name = unescape(token);
            JsonNode next = node.isArray() ? node.get(index(name, node.size())) : node.isObject() ? node.get(name)
                    : null;
            if (next == null) {
                throw new IllegalArgumentException("there is no '" + pointer + "'");
            }
            node = next;
        }
        return node;
    }

    private static String parentOf(String pointer) {
        return pointer.substring(0, pointer.lastIndexOf('/'));
    }

    private static String lastOf(String pointer) {
        return unescape(pointer.substring(pointer.lastIndexOf('/') + 1));
    }

    private static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }

    private static int index(String token, int bound) {
        int index;
        try {
            index = Integer.parseInt(token);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + token + "' is not an array index");
        }
        if (index < 0 || index >= bound) {
            throw new IllegalArgumentException("index " + index + " is out of bounds");
        }
        return index;
    }

    private static String text(JsonNode operation, String name) {
        JsonNode value = operation.get(name);
        if (value == null || !value.isString()) {
            throw new IllegalArgumentException("'" + name + "' is missing");
        }
        return value.stringValue();
    }

    private static JsonNode value(JsonNode operation) {
        return Objects.requireNonNull(operation.get("value"), "'value' is missing").deepCopy();
    }
}
