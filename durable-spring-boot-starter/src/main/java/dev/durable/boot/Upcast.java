package dev.durable.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An upcaster of a {@link DurableMachine}: brings a state stored by version {@link #fromVersion()} of the machine to
 * the next version, as JSON trees (Jackson's {@code tools.jackson.databind}). Declared on the machine's current
 * version, one method per older version whose rows may still be stored, from the oldest up to the version before the
 * current one, without a gap: the node then also runs those rows, upcast through the chain, on the current version.
 * The method takes the stored state as a {@code JsonNode} or {@code ObjectNode} and returns the next version's as a
 * {@code JsonNode} or {@code ObjectNode}; it may change the tree it is given and return it. It must be neither private
 * nor static, and free of side effects: it runs each time a row of its version is picked, until the row's step
 * commits.
 *
 * <pre>{@code
 * @Upcast(fromVersion = 1)
 * ObjectNode renameReservation(ObjectNode order) {
 *     order.set("reservationId", order.remove("reservation"));
 *     return order;
 * }
 * }</pre>
 *
 * <p>If it throws, returns {@code null} or a state the machine's state type cannot read without losing a property, the
 * row is left as it was stored and the instance is suspended (or failed, {@code durable.lossy-state}), with the error
 * as its reason.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Upcast {

    /** The version whose stored states this method brings to the next version; older than the machine's version. */
    int fromVersion();
}
