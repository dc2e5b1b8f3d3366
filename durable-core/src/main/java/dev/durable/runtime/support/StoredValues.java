package dev.durable.runtime.support;

import dev.durable.StartOptions;
import dev.durable.UnstorableValueException;
import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns the values durable stores (states, results, signal payloads and the keys that go with them) into what is
 * stored, refusing at the call, before any SQL, what could not be stored faithfully: a value the codec cannot
 * write (with Jackson: an object it sees no properties of, which would be stored as {@code {}}), a state whose
 * JSON would not read back into its machine's state type, and text holding a NUL character, which PostgreSQL
 * refuses. Each refusal is an
 * {@link UnstorableValueException} that names the value and the type or field.
 *
 * <p>Used by the client (starts and signals) and by the step runner (outcomes), so both refuse the same values.
 */
public final class StoredValues {

    private final JsonCodec codec;

    public StoredValues(JsonCodec codec) {
        this.codec = codec;
    }

    /** The codec values are written with; the client reads instances back with it too. */
    public JsonCodec codec() {
        return codec;
    }

    // Every refusal reads "<what> cannot be serialized|stored; <nothing done>: <why>", e.g.
    // "The state for machine order v1 cannot be stored; nothing was started: its field $.note holds a NUL ...".

    /** The JSON of a state of {@code machine}, checked to read back as the machine's state type. */
    public String state(MachineDefinition machine, @Nullable Object state, Supplier<String> what, String nothingDone) {
        String json = write(state, what, nothingDone);
        try {
            codec.checkReadsBack(json, machine.stateType());
        } catch (JsonCodecException e) {
            throw refused(what, "stored", nothingDone, e.getMessage(), e);
        }
        return json;
    }

    /**
     * The JSON of a result or a signal payload. These are read as whatever type the reader asks for, so there is
     * no type to read them back as; the codec's own checks (an object it sees no properties of) and the NUL check
     * apply.
     */
    public String value(@Nullable Object value, Supplier<String> what, String nothingDone) {
        return write(value, what, nothingDone);
    }

    /** Checks a key or name stored as text: PostgreSQL text cannot hold a NUL character. */
    public static void checkText(@Nullable String text, Supplier<String> what, String nothingDone) {
        if (text != null && text.indexOf('\u0000') >= 0) {
            throw refused(what, "stored", nothingDone, "it holds a NUL character (\\u0000) at index "
                    + text.indexOf('\u0000') + ", which PostgreSQL cannot store", null);
        }
    }

    /**
     * Checks a key kept in a B-tree index (partition, unique, correlation and dedup keys): text without a NUL
     * character, at most {@link StartOptions#MAX_KEY_BYTES} bytes in UTF-8, since an index entry must fit in a third
     * of a page (a longer one would fail the statement that writes it, or for a partition key, every pick of it).
     */
    public static void checkKey(@Nullable String key, Supplier<String> what, String nothingDone) {
        checkText(key, what, nothingDone);
        if (key != null) {
            int bytes = key.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > StartOptions.MAX_KEY_BYTES) {
                throw refused(what, "stored", nothingDone, "it is " + bytes + " bytes long in UTF-8, and a key is at"
                        + " most " + StartOptions.MAX_KEY_BYTES, null);
            }
        }
    }

    private String write(@Nullable Object value, Supplier<String> what, String nothingDone) {
        String json;
        try {
            json = codec.write(value);
        } catch (JsonCodecException e) {
            throw refused(what, "serialized", nothingDone, e.getMessage(), e);
        }
        String nul = NulCharacters.find(json);
        if (nul != null) {
            throw refused(what, "stored", nothingDone, "its field " + nul
                    + " holds a NUL character (\\u0000), which PostgreSQL's jsonb cannot store", null);
        }
        return json;
    }

    private static UnstorableValueException refused(Supplier<String> what, String verb, String nothingDone,
            String why, @Nullable Throwable cause) {
        String message = what.get() + " cannot be " + verb + "; " + nothingDone + ": " + why;
        return cause == null ? new UnstorableValueException(message) : new UnstorableValueException(message, cause);
    }
}
