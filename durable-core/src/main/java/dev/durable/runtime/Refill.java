package dev.durable.runtime;

import java.util.List;
import java.util.Map;

/**
 * A request, carried by a step's transition, to claim the next row of the step's queue in the transaction that commits
 * the outcome, so that the step's slot goes on with it at once (docs/DESIGN.md, "The life of a step"): one commit
 * ends a step and starts the next instead of two, and no pick waits for the slot. What the queue's pick needs.
 *
 * @param queue    the queue whose slot the step holds
 * @param machines the machine versions this node runs on that queue
 * @param owner    this node's id, the new claim's owner
 */
record Refill(String queue, Map<String, List<Integer>> machines, String owner) {

    Refill {
        machines = Map.copyOf(machines);
    }
}
