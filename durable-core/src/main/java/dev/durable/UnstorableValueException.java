package dev.durable;

/**
 * A state, result or signal payload that durable cannot store faithfully, refused at the call with nothing stored:
 * its JSON would not read back into the type it is read as (for example a class whose fields Jackson does not see,
 * stored as {@code {}}), or it holds a NUL character, which PostgreSQL's {@code jsonb} cannot hold. The message
 * names the value, the type or field, and why.
 *
 * <p>An {@link IllegalArgumentException}, like the other refusals of bad input at the call.
 */
public class UnstorableValueException extends IllegalArgumentException {

    public UnstorableValueException(String message) {
        super(message);
    }

    public UnstorableValueException(String message, Throwable cause) {
        super(message, cause);
    }
}
