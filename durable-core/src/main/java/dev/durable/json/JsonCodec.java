package dev.durable.json;

import java.lang.reflect.Type;
import java.util.List;
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
     * Reads stored {@code json} as {@code type}, as {@link #read} does, and also says which stored properties the value
     * does not keep: properties of the JSON that the type has no place for and that the codec would skip without an
     * error (docs/DESIGN.md, "Lossy states"). Written back, such a value would lose them. The engine reads every
     * stored state through this method before its step runs, and does not run a step whose state would lose a
     * property: it suspends (or fails) the instance and leaves the stored JSON as it is.
     *
     * <p>What this guarantees: every path it reports is a property of {@code json} that the value does not hold, with
     * a value other than JSON {@code null}. It reports nothing the type keeps (a property of the type, or one a
     * catch-all such as a map of the rest holds), nothing the type adds that the JSON lacks, and nothing the type
     * declares it ignores. By default it reports nothing: a codec that cannot tell lets every read pass, as before
     * this method existed. {@link JacksonJsonCodec} reports every property its reader skips as unknown.
     *
     * @throws JsonCodecException if the text cannot be read as that type
     */
    default Binding bind(String json, Type type) {
        return new Binding(read(json, type), List.of());
    }

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

    /**
     * A stored JSON read as a type ({@link #bind}).
     *
     * @param value        the value read
     * @param droppedPaths the stored properties the value does not keep, as paths such as {@code $.reservation} or
     *                     {@code $.lines[2].note}, in the order they were met; empty when nothing is lost
     */
    record Binding(@Nullable Object value, List<String> droppedPaths) {

        public Binding {
            droppedPaths = List.copyOf(droppedPaths);
        }

        /** Whether the value would lose stored properties. */
        public boolean lossy() {
            return !droppedPaths.isEmpty();
        }
    }
}
