package dev.durable.machine;

import tools.jackson.databind.JsonNode;

/**
 * Brings a stored state of one version of a machine to the next: from the JSON tree of version {@code N}, as it is
 * stored, to the JSON tree of version {@code N + 1}. Declared on the machine's current version
 * ({@link MachineDefinition.Builder#upcaster(int, StateUpcaster)}), one per older version, and chained: a row of
 * version 1 picked by a node whose machine is at version 3 goes through the upcasters from 1 and from 2, and its step
 * then runs on version 3 (docs/DESIGN.md, "Upcasting").
 *
 * <pre>{@code
 * .upcaster(1, stored -> {
 *     ObjectNode order = (ObjectNode) stored;
 *     order.set("reservationId", order.remove("reservation")); // renamed in version 2
 *     return order;
 * })
 * }</pre>
 *
 * <p>The tree may be changed in place and returned, or a new one returned. An upcaster runs each time a row of its
 * version is picked, until the step's outcome commits the state and version it produced: it must be a pure function
 * of the tree, without side effects. What it returns must read as the current version's state type without losing a
 * property; if it throws, returns {@code null} or something that state type cannot read, no step runs, the row is left
 * exactly as stored and the instance is suspended (or failed, as {@code durable.lossy-state} says), with the
 * upcaster's error as its reason.
 */
@FunctionalInterface
public interface StateUpcaster {

    /**
     * The state of the next version from {@code stored}, a state of the version this upcaster is declared for. A stored
     * SQL {@code NULL} state is not upcast.
     */
    JsonNode upcast(JsonNode stored) throws Exception;
}
