package dev.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node as the database knows it, as {@link DurableClient#nodes()} reads it: a running engine registers itself in
 * {@code durable_node} with the machine versions it runs and renews the row on every heartbeat; a node that stops
 * deletes it, one that dies leaves it to age out (docs/DESIGN.md, "Leases, heartbeat and reaper").
 *
 * @param id        the node's id (its name and a suffix per start)
 * @param startedAt when it registered
 * @param seenAt    when its heartbeat last renewed the row
 * @param silence   how long ago that was, by the database's clock: a node silent for longer than the lease TTL is
 *                  taken for dead by the others (its claims are reaped, its machine versions no longer count)
 * @param machines  the machine versions it runs, by machine name, in order
 */
public record ClusterNode(String id, Instant startedAt, Instant seenAt, Duration silence,
        Map<String, List<Integer>> machines) {

    public ClusterNode {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(seenAt, "seenAt");
        Objects.requireNonNull(silence, "silence");
        Map<String, List<Integer>> copy = new LinkedHashMap<>();
        machines.forEach((name, versions) -> copy.put(name, List.copyOf(versions)));
        machines = java.util.Collections.unmodifiableMap(copy);
    }

    /** Whether its heartbeat renewed it within {@code window} (the lease TTL, for the others' view of it). */
    public boolean seenWithin(Duration window) {
        return silence.compareTo(window) <= 0;
    }
}
