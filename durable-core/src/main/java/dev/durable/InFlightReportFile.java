package dev.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The file format of an {@link InFlightReport} (docs/DESIGN.md, "The in-flight file"), written and read in this one
 * place. Reading is strict about what it needs and names where a file departs from it: every property of the format
 * is required and of one JSON type (no number read from a string), while properties it does not know are ignored, so
 * that a property added to the format keeps its version.
 */
final class InFlightReportFile {

    private static final JsonMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES,
                    DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES,
                    DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
                    DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private InFlightReportFile() {
    }

    static String write(InFlightReport report) {
        ObjectNode root = STRICT.createObjectNode();
        root.put("format", InFlightReport.FORMAT);
        root.put("formatVersion", InFlightReport.FORMAT_VERSION);
        root.put("takenAt", report.takenAt().toString());
        root.put("sampleSize", report.sampleSize());
        root.put("countLimit", report.countLimit());
        root.put("signalLimit", report.signalLimit());
        root.put("signalsComplete", report.signalsComplete());
        writeGroups(root.putArray("groups"), report.groups());
        writeGroups(root.putArray("failed"), report.failed());
        return STRICT.writeValueAsString(root) + System.lineSeparator();
    }

    private static void writeGroups(ArrayNode array, List<InFlightReport.Group> groups) {
        for (InFlightReport.Group group : groups) {
            ObjectNode node = array.addObject();
            node.put("machine", group.machine());
            node.put("version", group.version());
            node.put("step", group.step());
            node.put("status", group.status().label());
            node.put("count", group.count());
            node.put("countExact", group.countExact());
            node.put("sampled", group.sampled());
            ArrayNode shapes = node.putArray("shapes");
            for (InFlightReport.Shape shape : group.shapes()) {
                ObjectNode shapeNode = shapes.addObject();
                shapeNode.put("instances", shape.instances());
                ArrayNode paths = shapeNode.putArray("paths");
                shape.paths().forEach(paths::add);
            }
            ObjectNode signals = node.putObject("pendingSignals");
            group.pendingSignals().forEach(signals::put);
        }
    }

    /** The report in {@code file}, or an {@link InFlightReport.UnreadableFileException} saying why not. */
    static InFlightReport read(Path file) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw unreadable(file, null, "does not exist", e);
        } catch (IOException e) {
            throw unreadable(file, null, "cannot be read: " + e, e);
        }
        checkFormat(file, content);
        try {
            return STRICT.readValue(content, InFlightReport.class);
        } catch (MismatchedInputException e) {
            String expected = expected(e.getTargetType());
            if (e.getOriginalMessage().startsWith("Missing creator property")) {
                throw unreadable(file, e.getLocation(), path(e.getPath()) + " is missing: expected " + expected, e);
            }
            throw unreadable(file, e.getLocation(), "expected " + expected + " at " + path(e.getPath()) + " ("
                    + e.getOriginalMessage() + ")", e);
        } catch (JacksonException e) {
            // A value its type refuses (an unknown status label, a negative count), or JSON that is not well formed
            // after all: say what is at fault where.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            String why = cause instanceof JacksonException jackson ? jackson.getOriginalMessage()
                    : String.valueOf(cause.getMessage());
            throw unreadable(file, e.getLocation(), "the value at " + path(e.getPath()) + " is not valid: " + why, e);
        }
    }

    /**
     * Reads the whole file as JSON, so that a file that is not well formed is refused where it breaks, and checks the
     * two properties that say what it is, {@code format} and {@code formatVersion}, before its content is read as a
     * report of this version.
     */
    private static void checkFormat(Path file, byte[] content) {
        String format = null;
        TokenStreamLocation formatAt = null;
        Integer version = null;
        TokenStreamLocation versionAt = null;
        try (JsonParser parser = STRICT.createParser(content)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw unreadable(file, parser.currentTokenLocation(), first == null ? "is empty: expected a JSON"
                        + " object with \"format\": \"" + InFlightReport.FORMAT + "\""
                        : "expected a JSON object with \"format\": \"" + InFlightReport.FORMAT + "\", found "
                                + describe(first), null);
            }
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("format".equals(name)) {
                    formatAt = parser.currentTokenLocation();
                    format = value == JsonToken.VALUE_STRING ? parser.getString() : describe(value);
                } else if ("formatVersion".equals(name)) {
                    versionAt = parser.currentTokenLocation();
                    if (value != JsonToken.VALUE_NUMBER_INT) {
                        throw unreadable(file, versionAt, "expected a whole number at $.formatVersion, found "
                                + describe(value), null);
                    }
                    version = parser.getIntValue();
                } else {
                    parser.skipChildren();
                }
            }
            if (parser.nextToken() != null) {
                throw unreadable(file, parser.currentTokenLocation(), "expected the end of the file after the"
                        + " report's object, found " + describe(parser.currentToken()), null);
            }
        } catch (JacksonException e) {
            throw unreadable(file, e.getLocation(), "is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (!InFlightReport.FORMAT.equals(format)) {
            throw unreadable(file, formatAt, format == null
                    ? "is not an in-flight report: it has no \"format\": \"" + InFlightReport.FORMAT + "\""
                    : "is not an in-flight report: its format is " + format + ", expected \"" + InFlightReport.FORMAT
                            + "\"", null);
        }
        if (version == null) {
            throw unreadable(file, null, "has no formatVersion: expected \"formatVersion\": "
                    + InFlightReport.FORMAT_VERSION, null);
        }
        if (version != InFlightReport.FORMAT_VERSION) {
            throw unreadable(file, versionAt, "has format version " + version + ", which this durable does not read"
                    + " (it reads format version " + InFlightReport.FORMAT_VERSION + "): read it with the durable"
                    + " version that wrote it, or export the report again with this one", null);
        }
    }

    private static InFlightReport.UnreadableFileException unreadable(Path file,
            @Nullable TokenStreamLocation location, String problem, @Nullable Throwable cause) {
        int line = location == null ? 0 : Math.max(location.getLineNr(), 0);
        int column = location == null ? 0 : Math.max(location.getColumnNr(), 0);
        String where = line > 0 ? ", line " + line + ", column " + column + ":" : "";
        return new InFlightReport.UnreadableFileException(file, line, column, "In-flight report "
                + file.toAbsolutePath() + where + " " + problem, cause);
    }

    /** {@code $.groups[0].count}: where in the file a property is, from Jackson's reference chain. */
    private static String path(List<JacksonException.Reference> references) {
        StringBuilder path = new StringBuilder("$");
        for (JacksonException.Reference reference : references) {
            if (reference.getPropertyName() != null) {
                path.append('.').append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /** What a value of {@code type} looks like in the file, for a message. */
    private static String expected(@Nullable Class<?> type) {
        if (type == null) {
            return "a value";
        }
        if (type == int.class || type == long.class || type == Integer.class || type == Long.class) {
            return "a whole number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type == Instant.class) {
            return "a time such as \"2026-01-31T12:00:00Z\"";
        }
        if (type == InstanceStatus.class) {
            return "a status label";
        }
        if (List.class.isAssignableFrom(type)) {
            return "an array";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord()) {
            return "an object";
        }
        return "a value of type " + type.getSimpleName();
    }

    private static String describe(@Nullable JsonToken token) {
        if (token == null) {
            return "the end of the file";
        }
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.toString();
        };
    }
}
