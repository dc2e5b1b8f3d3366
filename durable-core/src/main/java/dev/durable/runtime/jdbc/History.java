package dev.durable.runtime.jdbc;

import java.util.Objects;

/**
 * Whether the repositories of an engine record the transitions they write in {@code durable_history}, and the node
 * they record as the writer (docs/DESIGN.md, "History"). Every statement that writes a transition inserts its history
 * row in the same statement, from what the write returned, when {@code recorded}; each binds both values.
 *
 * @param recorded whether transitions are recorded ({@code history} setting)
 * @param node     the id of the node that writes them
 */
public record History(boolean recorded, String node) {

    public History {
        Objects.requireNonNull(node, "node");
    }

    /** No history: for repositories of tests that check something else. */
    public static History off() {
        return new History(false, "-");
    }
}
