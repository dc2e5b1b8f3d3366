package dev.durable.json;

import dev.durable.DurableException;

/** A value could not be written as JSON, or JSON could not be read as the requested type. */
public class JsonCodecException extends DurableException {

    public JsonCodecException(String message) {
        super(message);
    }

    public JsonCodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
