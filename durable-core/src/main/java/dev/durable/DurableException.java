package dev.durable;

/** Base class of the exceptions durable throws at its callers. */
public class DurableException extends RuntimeException {

    public DurableException(String message) {
        super(message);
    }

    public DurableException(String message, Throwable cause) {
        super(message, cause);
    }
}
