package dev.durable.runtime.jdbc;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The notification channel of one schema's nodes (docs/DESIGN.md, "Wake-ups"), and what its payloads say. Writers
 * send {@code pg_notify} in the transaction of the write, in the statement itself or in one that follows it, with
 * {@link #queue(String)} (work became runnable on a queue) or {@link #cancelled(long)} (an instance was cancelled
 * while executing); PostgreSQL delivers each distinct payload once per transaction, so a batch that wakes one queue
 * many times sends one notification. The node's listener reads them on its dedicated connection.
 */
public final class WakeUpChannel {

    /** A payload's prefix: work became runnable on the queue named after it. */
    public static final String QUEUE = "q:";
    /** A payload's prefix: the instance whose id follows was cancelled while executing. */
    public static final String CANCELLED = "c:";

    /** The most bytes PostgreSQL keeps of an identifier (NAMEDATALEN - 1). */
    private static final int MAX_IDENTIFIER_BYTES = 63;

    private WakeUpChannel() {
    }

    /**
     * The channel of {@code schema}: {@code durable_wake_} and the schema's name, or, past PostgreSQL's 63 bytes of
     * an identifier, and its hash instead of the name. Passed to {@code pg_notify} as a value; {@code LISTEN} takes it
     * as a quoted identifier ({@link #quoted(String)}).
     */
    public static String of(String schema) {
        String channel = "durable_wake_" + schema;
        if (channel.getBytes(StandardCharsets.UTF_8).length <= MAX_IDENTIFIER_BYTES) {
            return channel;
        }
        return "durable_wake_" + Integer.toHexString(schema.hashCode()).toLowerCase(Locale.ROOT);
    }

    /** {@code channel} as a quoted SQL identifier: its double quotes doubled. */
    public static String quoted(String channel) {
        return '"' + channel.replace("\"", "\"\"") + '"';
    }

    /** The payload saying that work became runnable on {@code queue}. */
    public static String queue(String queue) {
        return QUEUE + queue;
    }

    /** The payload saying that instance {@code id} was cancelled while executing. */
    public static String cancelled(long id) {
        return CANCELLED + id;
    }
}
