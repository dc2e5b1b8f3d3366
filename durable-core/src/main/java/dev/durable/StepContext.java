package dev.durable;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a step (or error handler) knows about the instance it runs for.
 */
public interface StepContext {

    long instanceId();

    /** The machine's name. */
    String machine();

    /** The machine version the instance runs on (the one it started with). */
    int version();

    /** The step being run. */
    String step();

    /**
     * How many times this step has been re-run: 0 on first run after {@code next}, +1 per {@code retry} (the step's,
     * its error handler's or its retry policy's) and per crash (lease expired without an outcome). What a retry policy
     * counts: it gives up once {@code attempt() + 1} runs reach its maximum (docs/DESIGN.md, "Retry policies").
     */
    int attempt();

    @Nullable String partitionKey();

    /**
     * The fencing token of this claim: every pick of a row gets a new token, larger than any before it, and the
     * step's outcome is written only while the row still carries this token. A step may pass it to the systems
     * it writes to, so that they can refuse the writes of an older claim whose lease was lost while it ran (a
     * paused or partitioned node that carries on after its row was given to another node).
     */
    long leaseToken();

    /** The instance's signals, snapshotted at pick. */
    Inbox inbox();

    /** The signals the instance was woken by (see {@link Inbox#awaited()}). */
    default List<Signal> awaited() {
        return inbox().awaited();
    }

    /**
     * Whether this run is the re-run of an await whose deadline passed before any awaited signal arrived: true
     * exactly when the instance parked with a deadline, the deadline has passed, and the inbox holds no signal of an
     * awaited name ({@link #awaited()} is empty). Like the inbox, it is fixed at pick, so a retried or re-executed
     * run sees the same answer unless a signal came in between. A signal that arrives after the pick stays in the
     * inbox.
     */
    default boolean timedOut() {
        return false;
    }

    /** The instance whose step started this one as a child; {@code null} if it was not started by a step. */
    default @Nullable Long parentId() {
        return null;
    }

    /** How many child instances this instance's committed outcomes have started (at pick). */
    default int childrenStarted() {
        return 0;
    }

    /** How many of this instance's children had ended (done, failed or cancelled) at pick. */
    default int childrenEnded() {
        return 0;
    }

    /**
     * This instance's children in the order they were started, with their status, result and last error as they
     * stand now: a read of the database, made when called (a child may end between two calls). Their states and
     * results read with the engine's JSON codec.
     */
    default List<DurableInstance> children() {
        return List.of();
    }

    /** The first awaited signal named {@code name}, if the instance was woken by one. */
    default Optional<Signal> awaited(String name) {
        return inbox().awaited(name);
    }

    /**
     * The payload of the first awaited signal named {@code name}, typed: empty if the instance was not woken by one.
     *
     * <pre>{@code
     * return ctx.awaited("payment", Payment.class)
     *         .map(payment -> Outcome.next("ship", order.paid(payment)))
     *         .orElseGet(() -> Outcome.await("payment", order));
     * }</pre>
     *
     * When the machine declares its signals ({@code MachineDefinition.Builder.signal}, the starter's
     * {@code @DurableSignal}), the payload is read as the type declared for {@code name} (a generic one such as
     * {@code List<Line>} reads its elements as declared), which the delivery checked it binds to (docs/DESIGN.md,
     * "Declared signals"); a machine that declares none reads it as {@code type}. The engine's contexts check the
     * declaration; this default, for a test's own context, reads the payload as {@code type}.
     *
     * @throws dev.durable.machine.StepFailureException.UndeclaredSignal if the machine declares its signals but not
     *         {@code name}, declares it without a payload, or with a payload type that is not a {@code type}: a mistake
     *         in the step, which takes the error path and is not retried
     * @throws IllegalStateException    if the awaited signal carries no payload (one sent before the machine declared
     *                                  its signals)
     */
    default <T> Optional<T> awaited(String name, Class<T> type) {
        return awaited(name).map(signal -> {
            T payload = signal.payload(type);
            if (payload == null) {
                throw new IllegalStateException("Signal '" + name + "' (id " + signal.id() + ") of instance "
                        + instanceId() + " carries no payload to read as " + type.getName());
            }
            return payload;
        });
    }
}
