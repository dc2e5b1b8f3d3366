package dev.durable.runtime;

/**
 * How a node hears of work and cancels made on other nodes (docs/DESIGN.md, "Wake-ups"): {@link #LISTEN} (the
 * default) on one dedicated connection per node, with polling kept as the fallback; {@link #POLL} by polling alone,
 * the mode for a node behind a connection pooler in transaction mode.
 */
public enum WakeUps {
    /**
     * The node listens on one dedicated connection of its own and its writes notify the others: a start, a signal that
     * wakes, a child's end that wakes its parent wake the queue's owner on every node at once, and a cancel reaches
     * the node holding the claim at once. Polling goes on as before; while the connection is down, or where
     * {@code LISTEN} cannot work (a pooler's URL, a refused {@code LISTEN}: one WARN), the node polls only.
     */
    LISTEN,
    /**
     * Polling only: no {@code LISTEN}, no notification sent. Work of other nodes is found at the next poll; a cancel
     * made on another node reaches a claim that waits for a slot through the wait-check (docs/DESIGN.md, "Cancel").
     */
    POLL
}
