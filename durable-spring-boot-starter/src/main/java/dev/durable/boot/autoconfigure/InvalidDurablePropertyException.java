package dev.durable.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/** A {@code durable.*} property (or what a customizer made of it) is invalid; reported by a failure analyzer. */
final class InvalidDurablePropertyException extends RuntimeException {

    private final String property;
    private final @Nullable Object value;
    private final String problem;

    InvalidDurablePropertyException(String property, @Nullable Object value, String problem, Throwable cause) {
        super("Invalid durable configuration: property '" + property + "'"
                + (value == null ? "" : " (value '" + value + "')") + ": " + problem, cause);
        this.property = property;
        this.value = value;
        this.problem = problem;
    }

    String property() {
        return property;
    }

    @Nullable Object value() {
        return value;
    }

    String problem() {
        return problem;
    }
}
