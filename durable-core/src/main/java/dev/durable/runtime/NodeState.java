package dev.durable.runtime;

/**
 * The life of a node: {@code STARTING -> RUNNING -> DRAINING -> STOPPED}, with {@code DEGRADED} while the database
 * cannot be reached (the node keeps retrying and returns to {@code RUNNING} by itself).
 */
public enum NodeState {
    /** Created, or started but not yet polling. */
    STARTING,
    /** Polling and running steps. */
    RUNNING,
    /** The database cannot be reached; background work retries with backoff. */
    DEGRADED,
    /** Stopping: no new picks, running steps finish within the grace period. */
    DRAINING,
    /** Stopped; unfinished claims were released. */
    STOPPED
}
