package dev.durable.runtime.support;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The trace context stored with an instance or a signal (docs/DESIGN.md, "Tracing"): W3C headers as text, one
 * {@code name value} line each, at most {@value #MAX_LENGTH} characters. {@code traceparent} (with its
 * {@code tracestate}) is the span the instance's next step continues as a child; {@code link} the span a new trace
 * links to. Lines the reader does not know are ignored; the first line of a name wins.
 */
public final class TraceHeaders {

    /** The W3C header of a span's trace and id. */
    public static final String TRACEPARENT = "traceparent";
    /** The W3C header of vendors' trace state. */
    public static final String TRACESTATE = "tracestate";
    /** A span to link to, as its {@code traceparent}. */
    static final String LINK = "link";
    /** The longest text stored: a traceparent is 55 characters; a longer tracestate is left out. */
    static final int MAX_LENGTH = 600;

    private TraceHeaders() {
    }

    /** The headers a propagating handler wrote, as stored text; null without a traceparent. */
    public static @Nullable String encode(@Nullable Map<String, String> headers) {
        String parent = headers == null ? null : valid(headers.get(TRACEPARENT));
        if (parent == null) {
            return null;
        }
        String state = headers.get(TRACESTATE);
        String encoded = TRACEPARENT + " " + parent;
        if (state != null && !state.isBlank() && state.indexOf('\n') < 0
                && encoded.length() + state.length() + TRACESTATE.length() + 2 <= MAX_LENGTH) {
            encoded += "\n" + TRACESTATE + " " + state;
        }
        return encoded;
    }

    /** A span's headers as the stored text of a link to it; null without a traceparent. */
    public static @Nullable String linkTo(@Nullable Map<String, String> headers) {
        String parent = headers == null ? null : valid(headers.get(TRACEPARENT));
        return parent == null ? null : LINK + " " + parent;
    }

    /**
     * What a step of an instance with this stored text continues: its first attempt continues the stored
     * {@code traceparent} as a child; a later attempt (a retry, a crash's hand-back) begins a new trace, linked to
     * the stored link or else to that parent.
     */
    public static Continuation forStep(@Nullable String stored, int attempt) {
        if (stored == null || stored.isEmpty()) {
            return Continuation.NONE;
        }
        Map<String, String> lines = parse(stored);
        String parent = lines.get(TRACEPARENT);
        String link = lines.get(LINK);
        if (parent != null && attempt == 0) {
            Map<String, String> headers = new HashMap<>(4);
            headers.put(TRACEPARENT, parent);
            String state = lines.get(TRACESTATE);
            if (state != null) {
                headers.put(TRACESTATE, state);
            }
            return new Continuation(headers, link == null ? Map.of() : Map.of(TRACEPARENT, link));
        }
        String linked = link != null ? link : parent;
        return new Continuation(Map.of(), linked == null ? Map.of() : Map.of(TRACEPARENT, linked));
    }

    private static Map<String, String> parse(String stored) {
        Map<String, String> lines = new HashMap<>(4);
        for (String line : stored.split("\n")) {
            int space = line.indexOf(' ');
            if (space > 0) {
                String value = line.substring(space + 1).trim();
                lines.putIfAbsent(line.substring(0, space), value);
            }
        }
        return lines;
    }

    /** A traceparent that can be stored on one line: 55 characters or so, no line break; else null. */
    private static @Nullable String valid(@Nullable String traceparent) {
        if (traceparent == null || traceparent.isBlank() || traceparent.length() > 128
                || traceparent.indexOf('\n') >= 0) {
            return null;
        }
        return traceparent.trim();
    }

    /**
     * The W3C headers a step's span continues as a child ({@code parent}, empty for a new trace) and those of the
     * span it links to ({@code link}, empty for none).
     */
    public record Continuation(Map<String, String> parent, Map<String, String> link) {

        public static final Continuation NONE = new Continuation(Map.of(), Map.of());
    }
}
