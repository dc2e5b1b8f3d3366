package dev.durable;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** One instance of a batch start: its initial state and options. */
public record StartRequest(@Nullable Object state, StartOptions options) {

    public StartRequest {
        Objects.requireNonNull(options, "options must not be null");
    }

    public static StartRequest of(@Nullable Object state) {
        return new StartRequest(state, StartOptions.defaults());
    }

    public static StartRequest of(@Nullable Object state, StartOptions options) {
        return new StartRequest(state, options);
    }
}
