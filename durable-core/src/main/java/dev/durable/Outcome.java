package dev.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What happens after a step: returned by every step method and by a machine's error handler.
 *
 * <table>
 *   <caption>Outcomes and the row they leave behind once committed</caption>
 *   <tr><th>outcome</th><th>status</th><th>step</th><th>attempt</th><th>eligible</th></tr>
 *   <tr><td>{@link #next(String, Object)}</td><td>runnable</td><td>the named step</td><td>0</td><td>now</td></tr>
 *   <tr><td>{@link #next(String, Object, Duration)}, {@link #nextAt(String, Object, Instant)}</td><td>runnable</td>
 *       <td>the named step</td><td>0</td><td>now + delay / at</td></tr>
 *   <tr><td>{@link #retry(Object, Duration)}</td><td>runnable</td><td>same</td><td>+1</td><td>now + delay</td></tr>
 *   <tr><td>{@link #await(String, Object)}</td><td>awaiting_signal</td><td>same</td><td>unchanged</td><td>on signal</td></tr>
 *   <tr><td>{@link #done(Object)}</td><td>done, result recorded</td><td>-</td><td>-</td><td>-</td></tr>
 *   <tr><td>{@link #stop(String)}</td><td>failed, reason recorded</td><td>-</td><td>-</td><td>-</td></tr>
 * </table>
 *
 * <p>The engine never computes a backoff or caps attempts: a retry's delay is chosen by the step, usually from
 * {@link StepContext#attempt()}. An {@code await} re-runs the <em>same</em> step when a signal of that name
 * arrives; the step then finds it in {@link StepContext#awaited(String)}.
 *
 * <p>The factories return {@code Outcome} (not the record types) so that expressions such as
 * {@code ctx.awaited("paid").map(s -> Outcome.next("ship", state)).orElseGet(() -> Outcome.await("paid", state))}
 * type-check.
 *
 * <p>Outcomes are checked before anything is written: a {@code null} outcome, an unknown next step, a state of
 * the wrong type or a result that cannot be serialized are errors of the step and take the error path.
 */
public sealed interface Outcome permits Outcome.Next, Outcome.Retry, Outcome.Await, Outcome.Done, Outcome.Stop {

    /** The kinds of outcome, one per record type; in listener events and as the {@code outcome} tag of metrics. */
    enum Kind {
        NEXT, RETRY, AWAIT, DONE, STOP;

        /** The lower-case name, as in metrics tags. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Which kind of outcome this is. */
    default Kind kind() {
        if (this instanceof Next) {
            return Kind.NEXT;
        }
        if (this instanceof Retry) {
            return Kind.RETRY;
        }
        if (this instanceof Await) {
            return Kind.AWAIT;
        }
        return this instanceof Done ? Kind.DONE : Kind.STOP;
    }

    /** Continue with {@code step} (attempt 0, runnable at once), storing {@code state}. */
    static Outcome next(String step, @Nullable Object state) {
        return new Next(step, state);
    }

    /**
     * Continue with {@code step} after {@code delay} (a durable timer): attempt 0, storing {@code state}; the row
     * waits as a runnable row eligible later, holding no thread, connection or memory of any node. Unlike
     * {@link #retry(Object, Duration)} it leaves the attempt alone.
     */
    static Outcome next(String step, @Nullable Object state, Duration delay) {
        return new Next(step, state, delay);
    }

    /**
     * Continue with {@code step} at {@code at} (a durable timer), storing {@code state}. The instant is turned into
     * a delay on this node's clock when the step returns; an instant already past runs the step at once.
     */
    static Outcome nextAt(String step, @Nullable Object state, Instant at) {
        Objects.requireNonNull(at, "next step's instant must not be null");
        long millis = Math.max(0, at.toEpochMilli() - System.currentTimeMillis());
        return new Next(step, state, Duration.ofMillis(millis));
    }

    /** Run the same step again after {@code delay} with {@code attempt + 1}, storing {@code state}. */
    static Outcome retry(@Nullable Object state, Duration delay) {
        return new Retry(state, delay);
    }

    /** Run the same step again at once with {@code attempt + 1}, storing {@code state}. */
    static Outcome retry(@Nullable Object state) {
        return new Retry(state, Duration.ZERO);
    }

    /** Park until a signal named {@code signal} arrives, then run the same step again; stores {@code state}. */
    static Outcome await(String signal, @Nullable Object state) {
        return new Await(signal, state);
    }

    /** Finish successfully, recording {@code result} (any JSON-serializable value, or {@code null}). */
    static Outcome done(@Nullable Object result) {
        return new Done(result);
    }

    /** Finish successfully without a result. */
    static Outcome done() {
        return new Done(null);
    }

    /** Finish as failed, recording {@code reason}. */
    static Outcome stop(String reason) {
        return new Stop(reason);
    }

    /** See {@link Outcome#next(String, Object)}. */
    record Next(String step, @Nullable Object state, Duration delay) implements Outcome {
        public Next {
            requireText(step, "next step");
            Objects.requireNonNull(delay, "next step's delay must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("next step's delay must not be negative, was " + delay);
            }
        }

        /** A next at once. */
        public Next(String step, @Nullable Object state) {
            this(step, state, Duration.ZERO);
        }
    }

    /** See {@link Outcome#retry(Object, Duration)}. */
    record Retry(@Nullable Object state, Duration delay) implements Outcome {
        public Retry {
            Objects.requireNonNull(delay, "retry delay must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("retry delay must not be negative, was " + delay);
            }
        }
    }

    /** See {@link Outcome#await(String, Object)}. */
    record Await(String signal, @Nullable Object state) implements Outcome {
        public Await {
            requireText(signal, "awaited signal name");
        }
    }

    /** See {@link Outcome#done(Object)}. */
    record Done(@Nullable Object result) implements Outcome {
    }

    /** See {@link Outcome#stop(String)}. */
    record Stop(String reason) implements Outcome {
        public Stop {
            Objects.requireNonNull(reason, "stop reason must not be null");
        }
    }

    private static void requireText(@Nullable String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
    }
}
