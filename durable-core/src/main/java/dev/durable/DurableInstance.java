package dev.durable;

import java.lang.reflect.Type;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A read-only view of one instance row, for operators and tests, as {@link DurableClient#find(long)} and
 * {@link DurableClient#list(InstanceQuery)} return it.
 *
 * <p>The state and result are kept as the stored JSON ({@link #stateJson()}, {@link #resultJson()}) and read into
 * a type of the caller's choosing with {@link #state(Class)} and {@link #result(Class)}, through the engine's
 * {@link dev.durable.json.JsonCodec}: under the Spring Boot starter that is the application's {@code JsonMapper},
 * the one that wrote them. They may hold personal data, so do not log or expose them without thought; the
 * {@code toString()} of an instance leaves them out.
 *
 * <p>The {@link #status()} is spelled by its label ({@code runnable}, {@code awaiting_signal}, ...) wherever it is
 * written out, in JSON as in {@code toString()}; see {@link InstanceStatus}.
 */
public interface DurableInstance {

    long id();

    /** The machine's name. */
    String machine();

    /** The machine version the instance runs on (the one it started with). */
    int version();

    /** The step the instance runs next, runs now, is parked in, or ended at. */
    String step();

    InstanceStatus status();

    String queue();

    /** Lower values are picked first. */
    short priority();

    @Nullable String partitionKey();

    /** The signal the instance is parked on while {@code awaiting_signal}. */
    @Nullable String awaits();

    /** How many times the current step has been re-run (see {@link StepContext#attempt()}). */
    int attempt();

    /**
     * When the instance may next be picked (while {@code runnable}); the far future for a
     * {@linkplain InstanceStatus#SUSPENDED suspended} one, which is picked only once an operator retries it.
     */
    Instant eligibleAt();

    /** The last error of a step, or the reason a {@link Outcome#stop(String) stop} gave; kept until the next. */
    @Nullable String lastError();

    /** The node that holds the instance's claim while {@code executing}. */
    @Nullable String leaseOwner();

    @Nullable Instant leaseExpiresAt();

    /** The unique key the instance was started with; see {@link #holdsUniqueKey()}. */
    @Nullable String uniqueKey();

    /**
     * Whether the instance holds its unique key now: its status is in its unique scope, so a start with the key
     * resolves to it, and {@link DurableClient#signalByUniqueKey} and {@link DurableClient#cancelByUniqueKey} address
     * it. False without a unique key, and after the instance left its scope (by default, once it ended).
     */
    boolean holdsUniqueKey();

    /** The correlation key the instance was started with ({@link StartOptions#correlationKey(String)}). */
    @Nullable String correlationKey();

    /** The state as stored JSON text; {@code null} only for a row written without one. */
    @Nullable String stateJson();

    /** The result as stored JSON text; {@code null} until the instance is {@code done} with a result. */
    @Nullable String resultJson();

    Instant createdAt();

    /** The instance whose step started this one as a child ({@link Child}); {@code null} for other instances. */
    default @Nullable Long parentId() {
        return null;
    }

    Instant updatedAt();

    /**
     * The state read as {@code type}, usually the machine's state type; {@code null} when the stored state is
     * {@code null}.
     *
     * @throws dev.durable.json.JsonCodecException naming the instance and the type, if the stored state cannot be
     *                                             read as {@code type}
     */
    <T> @Nullable T state(Class<T> type);

    /** The state read as a (possibly generic) {@code type}; see {@link #state(Class)}. */
    @Nullable Object state(Type type);

    /**
     * The result read as {@code type}; {@code null} while the instance is not {@code done}, and when it finished
     * without a result.
     *
     * @throws dev.durable.json.JsonCodecException naming the instance and the type, if the stored result cannot be
     *                                             read as {@code type}
     */
    <T> @Nullable T result(Class<T> type);

    /** The result read as a (possibly generic) {@code type}; see {@link #result(Class)}. */
    @Nullable Object result(Type type);
}
