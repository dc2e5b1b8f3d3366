package dev.durable.runtime.step;

import dev.durable.StatePatch;
import dev.durable.runtime.EngineSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Computes the patch a transition records in its history entry (docs/DESIGN.md, "History", patches): the RFC 6902
 * JSON Patch from the state stored before it to the state it writes, as JSON text no longer than {@code maxBytes}
 * (else cut: the operations that fit, then the {@link StatePatch#CUT} marker). Runs on the step's thread, never on the
 * committer's.
 *
 * <p>Both states are parsed into trees (numbers digit for digit) and walked side by side; numbers are compared by
 * value, since {@code jsonb} writes them back in its own notation ({@code 1.0E+10} stored is {@code 10000000000}).
 * A state that did not change costs the two parses and one walk that finds nothing, and records no patch. Objects
 * give {@code add}, {@code remove} and a recursion per common property; arrays keep their common head and tail, recurse
 * into the elements in between pairwise and add or remove the rest; anything else that differs is a {@code replace}.
 */
public final class StatePatches {

    private static final JsonMapper TREES = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Room kept for the marker of a cut patch: {@code ,{"op":"cut","bytes":<long>,"operations":<int>}]}. */
    private static final int MARKER_BYTES = 66;

    private final int maxBytes;

    /** @param maxBytes the longest patch stored, in bytes of UTF-8 ({@code durable.history.patch-max-bytes}) */
    public StatePatches(int maxBytes) {
        if (maxBytes < EngineSettings.MIN_HISTORY_PATCH_MAX_BYTES) {
            throw new IllegalArgumentException("a patch may take at least "
                    + EngineSettings.MIN_HISTORY_PATCH_MAX_BYTES + " bytes, not " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /**
     * The patch from {@code before} to {@code after} as stored JSON text, or {@code null} when they hold the same JSON
     * (or {@code after} is null: the transition keeps the stored state). A {@code before} that is not JSON (never
     * stored by the engine) is replaced whole.
     */
    public @Nullable String between(@Nullable String before, @Nullable String after) {
        if (after == null) {
            return null;
        }
        JsonNode to = TREES.readTree(after);
        JsonNode from;
        try {
            from = before == null ? null : TREES.readTree(before);
        } catch (JacksonException e) {
            from = null;
        }
        List<ObjectNode> operations = new ArrayList<>();
        if (from == null) {
            operations.add(operation("replace", "", to));
        } else {
            diff(from, to, "", operations);
        }
        return operations.isEmpty() ? null : capped(operations);
    }

    /** The operations as a JSON array, cut to {@link #maxBytes} with the marker if they are longer. */
    private String capped(List<ObjectNode> operations) {
        List<String> texts = new ArrayList<>(operations.size());
        long whole = 1 + operations.size(); // the brackets and the commas
        for (ObjectNode operation : operations) {
            String text = operation.toString();
            texts.add(text);
            whole += utf8Length(text);
        }
        StringBuilder json = new StringBuilder(128).append('[');
        if (whole <= maxBytes) {
            return json.append(String.join(",", texts)).append(']').toString();
        }
        long bytes = 1;
        for (String text : texts) {
            long size = utf8Length(text) + 1;
            if (bytes + size + MARKER_BYTES > maxBytes) {
                break;
            }
            json.append(text).append(',');
            bytes += size;
        }
        ObjectNode marker = NODES.objectNode().put("op", StatePatch.CUT).put("bytes", whole)
                .put("operations", operations.size());
        return json.append(marker).append(']').toString();
    }

    private static void diff(JsonNode from, JsonNode to, String path, List<ObjectNode> out) {
        if (from.isObject() && to.isObject()) {
            for (Map.Entry<String, JsonNode> property : from.properties()) {
                JsonNode target = to.get(property.getKey());
                String at = path + "/" + escape(property.getKey());
                if (target == null) {
                    out.add(NODES.objectNode().put("op", "remove").put("path", at));
                } else {
                    diff(property.getValue(), target, at, out);
                }
            }
            for (Map.Entry<String, JsonNode> property : to.properties()) {
                if (!from.has(property.getKey())) {
                    out.add(operation("add", path + "/" + escape(property.getKey()), property.getValue()));
                }
            }
        } else if (from.isArray() && to.isArray()) {
            diffArrays(from, to, path, out);
        } else if (!same(from, to)) {
            out.add(operation("replace", path, to));
        }
    }

    /**
     * The common head and tail stay; the elements between are compared pairwise, and the longer side's rest is added
     * or removed in place (removed at the same index, which the next one then takes).
     */
    private static void diffArrays(JsonNode from, JsonNode to, String path, List<ObjectNode> out) {
        int head = 0;
        int shorter = Math.min(from.size(), to.size());
        while (head < shorter && equal(from.get(head), to.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < shorter - head
                && equal(from.get(from.size() - 1 - tail), to.get(to.size() - 1 - tail))) {
            tail++;
        }
        int fromMiddle = from.size() - head - tail;
        int toMiddle = to.size() - head - tail;
        int paired = Math.min(fromMiddle, toMiddle);
        for (int k = 0; k < paired; k++) {
            diff(from.get(head + k), to.get(head + k), path + "/" + (head + k), out);
        }
        for (int k = paired; k < fromMiddle; k++) {
            out.add(NODES.objectNode().put("op", "remove").put("path", path + "/" + (head + paired)));
        }
        for (int k = paired; k < toMiddle; k++) {
            out.add(operation("add", path + "/" + (head + k), to.get(head + k)));
        }
    }

    /** Whether two trees hold the same JSON, numbers compared by value. */
    private static boolean equal(JsonNode a, JsonNode b) {
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Map.Entry<String, JsonNode> property : a.properties()) {
                JsonNode other = b.get(property.getKey());
                if (other == null || !equal(property.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            Iterator<JsonNode> others = b.iterator();
            for (JsonNode element : a) {
                if (!equal(element, others.next())) {
                    return false;
                }
            }
            return true;
        }
        return same(a, b);
    }

    /** Two leaves (or a leaf and a container): numbers by value, the rest as Jackson compares them. */
    private static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    private static ObjectNode operation(String op, String path, JsonNode value) {
        ObjectNode operation = NODES.objectNode().put("op", op).put("path", path);
        operation.set("value", value);
        return operation;
    }

    /** A property name as a JSON Pointer token (RFC 6901). */
    private static String escape(String name) {
        return name.indexOf('~') < 0 && name.indexOf('/') < 0 ? name : name.replace("~", "~0").replace("/", "~1");
    }

    private static long utf8Length(String text) {
        long length = text.length();
        for (int k = 0; k < text.length(); k++) {
            if (text.charAt(k) >= 0x80) {
                return text.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return length;
    }
}
