package dev.durable.runtime.deploy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shape of a stored state, and back (docs/DESIGN.md, "What is in flight"): its property paths with their JSON
 * types, one line each ({@code $.lines[].sku: string}), which is what an in-flight report keeps of a state; and, for
 * the deploy check against a report, a skeleton document of a shape, with the structure as stored and neutral values
 * in its leaves, for the machine's codec to read.
 *
 * <p>Paths: {@code $} is the state; {@code .name} a property, or {@code ['name']} when the name is not a plain
 * identifier ({@code \} and {@code '} escaped with a backslash); {@code []} any element of an array. Types: object,
 * array, string, number, boolean, null.
 */
public final class StateShapes {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
    private static final String SEPARATOR = ": ";
    /** A shape's lines in path order, a parent before its children ({@code $.a}, {@code $.a.b}, {@code $.a[]}). */
    private static final Comparator<String> LINE_ORDER = Comparator.comparing(StateShapes::pathOf)
            .thenComparing(StateShapes::typeOf);

    private StateShapes() {
    }

    /**
     * The shape of {@code json}: every path with its type, each once, in path order. A state stored as SQL
     * {@code NULL} ({@code json} null) has the shape {@code $: null}.
     *
     * @throws IllegalArgumentException if {@code json} is not JSON (PostgreSQL's {@code jsonb} only holds JSON)
     */
    public static List<String> of(@Nullable String json) {
        Set<String> lines = new TreeSet<>(LINE_ORDER);
        if (json == null) {
            lines.add("$" + SEPARATOR + "null");
        } else {
            JsonNode root;
            try {
                root = JSON.readTree(json);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("A stored state is not JSON: " + e.getOriginalMessage(), e);
            }
            collect(root, "$", lines);
        }
        return List.copyOf(lines);
    }

    private static void collect(JsonNode node, String path, Set<String> lines) {
        lines.add(path + SEPARATOR + typeName(node));
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> property : node.properties()) {
                collect(property.getValue(), path + member(property.getKey()), lines);
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                collect(element, path + "[]", lines);
            }
        }
    }

    private static String typeName(JsonNode node) {
        if (node.isObject()) {
            return "object";
        }
        if (node.isArray()) {
            return "array";
        }
        if (node.isString()) {
            return "string";
        }
        if (node.isNumber()) {
            return "number";
        }
        if (node.isBoolean()) {
            return "boolean";
        }
        return "null";
    }

    /** {@code .name}, or {@code ['odd name']} for a name that is not a plain identifier. */
    static String member(String name) {
        if (IDENTIFIER.matcher(name).matches()) {
            return "." + name;
        }
        return "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']";
    }

    /** The path of a line: what comes before its last {@code ": "} (a type never holds one). */
    static String pathOf(String line) {
        int separator = line.lastIndexOf(SEPARATOR);
        return separator < 0 ? line : line.substring(0, separator);
    }

    static String typeOf(String line) {
        int separator = line.lastIndexOf(SEPARATOR);
        return separator < 0 ? "" : line.substring(separator + SEPARATOR.length());
    }

    /** How the leaves of a skeleton are filled: see {@link #skeleton(List, Strings)}. */
    enum Strings {
        /** Every string leaf is {@code null}: reads as any reference type (an enum, a UUID, a date, a String). */
        AS_NULL,
        /** Every string leaf is {@code ""}: passes a constructor that refuses null. */
        AS_EMPTY
    }

    /**
     * A document of {@code shape}: its structure as stored, with leaves chosen so that reading it fails only on the
     * structure, as far as values can: a number is {@code 0} (reads as any number, a primitive too, an enum's first
     * constant, a string), a boolean {@code false}, a null {@code null}, a string as {@code strings} says. An array
     * holds one element per type its elements had, an object element every property any of them had (their values'
     * types taken in turn when the elements differed).
     *
     * @throws IllegalArgumentException naming the line, if a line is not a path and a type this class writes
     */
    static String skeleton(List<String> shape, Strings strings) {
        Node root = new Node();
        for (String line : shape) {
            parse(line).reach(root).types.add(typeOf(line));
        }
        JsonNode document = root.types.isEmpty() ? JsonNodeFactory.instance.nullNode()
                : root.value(root.types.iterator().next(), 0, strings);
        return JSON.writeValueAsString(document);
    }

    /** One path of a shape, as the steps from the state to the node it names. */
    private record Path(List<String> steps) {

        /** The node of {@code root} this path names, created on the way. A step is a property name, or null for []. */
        Node reach(Node root) {
            Node node = root;
            for (String step : steps) {
                node = step == null ? node.elements() : node.member(step);
            }
            return node;
        }
    }

    private static Path parse(String line) {
        String path = pathOf(line);
        if (!path.startsWith("$") || typeOf(line).isEmpty()) {
            throw new IllegalArgumentException("Not a path and a type of a state's shape: '" + line
                    + "' (expected e.g. '$.lines[].sku: string')");
        }
        List<String> steps = new ArrayList<>();
        int i = 1;
        while (i < path.length()) {
            if (path.startsWith("[]", i)) {
                steps.add(null);
                i += 2;
            } else if (path.startsWith("['", i)) {
                StringBuilder name = new StringBuilder();
                int j = i + 2;
                while (j < path.length() && path.charAt(j) != '\'') {
                    if (path.charAt(j) == '\\' && j + 1 < path.length()) {
                        j++;
                    }
                    name.append(path.charAt(j++));
                }
                if (!path.startsWith("']", j)) {
                    throw new IllegalArgumentException("Unclosed ['...'] in the path of '" + line + "'");
                }
                steps.add(name.toString());
                i = j + 2;
            } else if (path.charAt(i) == '.') {
                int j = i + 1;
                while (j < path.length() && path.charAt(j) != '.' && path.charAt(j) != '[') {
                    j++;
                }
                steps.add(path.substring(i + 1, j));
                i = j;
            } else {
                throw new IllegalArgumentException("Unexpected '" + path.charAt(i) + "' at index " + i
                        + " of the path of '" + line + "'");
            }
        }
        return new Path(steps);
    }

    /** A node of a skeleton: the types seen at its path, its properties (as an object), its elements (as an array). */
    private static final class Node {

        final Set<String> types = new LinkedHashSet<>();
        final Map<String, Node> members = new LinkedHashMap<>();
        @Nullable Node elements;

        Node member(String name) {
            return members.computeIfAbsent(name, n -> new Node());
        }

        Node elements() {
            if (elements == null) {
                elements = new Node();
            }
            return elements;
        }

        /** How many values this node needs so that each of its types, and its members' types, is seen once. */
        int variants() {
            int variants = 1;
            for (Node member : members.values()) {
                variants = Math.max(variants, member.types.size());
            }
            return variants;
        }

        /** The value of this node as {@code type}; its members take their {@code variant}-th type (in turn). */
        JsonNode value(String type, int variant, Strings strings) {
            JsonNodeFactory nodes = JsonNodeFactory.instance;
            return switch (type) {
                case "object" -> {
                    ObjectNode object = nodes.objectNode();
                    members.forEach((name, member) -> {
                        List<String> memberTypes = List.copyOf(member.types);
                        if (!memberTypes.isEmpty()) {
                            object.set(name, member.value(memberTypes.get(variant % memberTypes.size()), variant,
                                    strings));
                        }
                    });
                    yield object;
                }
                case "array" -> {
                    ArrayNode array = nodes.arrayNode();
                    if (elements != null) {
                        for (String elementType : elements.types) {
                            int variants = elementType.equals("object") ? elements.variants() : 1;
                            for (int v = 0; v < variants; v++) {
                                array.add(elements.value(elementType, v, strings));
                            }
                        }
                    }
                    yield array;
                }
                case "string" -> strings == Strings.AS_NULL ? nodes.nullNode() : nodes.stringNode("");
                case "number" -> nodes.numberNode(0);
                case "boolean" -> nodes.booleanNode(false);
                case "null" -> nodes.nullNode();
                default -> throw new IllegalArgumentException("Unknown JSON type '" + type + "' in a state's shape"
                        + " (types: object, array, string, number, boolean, null)");
            };
        }
    }
}
