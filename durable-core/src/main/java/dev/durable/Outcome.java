package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
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
 *   <tr><td>{@link #retryByPolicy(Object)}</td><td>runnable, or failed once the policy gives up</td><td>same</td>
 *       <td>+1</td><td>now + the policy's delay</td></tr>
 *   <tr><td>{@link #await(String, Object)}, {@link #awaitAny(Collection, Object)}</td><td>awaiting_signal</td>
 *       <td>same</td><td>unchanged</td><td>on signal</td></tr>
 *   <tr><td>{@link #await(String, Object, Duration)}, {@link #awaitUntil(String, Object, Instant)},
 *       {@link #awaitAny(Collection, Object, Duration)}</td><td>awaiting_signal</td><td>same</td><td>unchanged</td>
 *       <td>on signal, or at the deadline</td></tr>
 *   <tr><td>{@link #awaitChildren(Object)}, {@link #awaitChildren(Object, Join)},
 *       {@link #awaitChildren(Object, Join, Duration)}</td><td>awaiting_signal</td><td>same</td><td>unchanged</td>
 *       <td>when all (or any) of its children have ended, or at the deadline</td></tr>
 *   <tr><td>{@link #done(Object)}</td><td>done, result recorded</td><td>-</td><td>-</td><td>-</td></tr>
 *   <tr><td>{@link #stop(String)}</td><td>failed, reason recorded</td><td>-</td><td>-</td><td>-</td></tr>
 * </table>
 *
 * <p>A {@code retry} with a delay runs the step again after that delay, however often. A step that throws (or fails
 * otherwise, docs/DESIGN.md, "Outcomes") is retried by its retry policy unless its error handler decides, and an
 * error handler, or a step, can hand the decision to that policy with {@link #retryByPolicy(Object)}: the engine
 * then computes the delay from the attempt, and fails the instance once the policy gives up (docs/DESIGN.md, "Retry
 * policies"). An {@code await} re-runs the <em>same</em> step when a signal of that name (or of
 * any name of an await set) arrives; the step then finds it in {@link StepContext#awaited(String)}. An await with a
 * deadline also re-runs the same step when the deadline passes first; the step then finds no awaited signal and
 * {@link StepContext#timedOut()} true, and nothing was consumed. A signal that arrives at the deadline either wakes
 * the instance (the step sees it and did not time out) or stays in the inbox, where the step and the ones after it
 * find it: the two never both win, and neither loses the signal.
 *
 * <p>A {@code next}, an {@code await} or a {@code done} can also start child instances, which exist if and only if
 * the outcome commits: {@code Outcome.awaitChildren(order).startingChildren(children)} starts them and parks until
 * they have all ended (see {@link Child} and docs/DESIGN.md, "Children").
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

        /** The lower-case name: this constant's one spelling outside Java code, in JSON and metric tags. */
        @JsonValue
        public String label() {
            return Labels.of(this);
        }

        /**
         * The kind spelled {@code label}.
         *
         * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
         */
        @JsonCreator
        public static Kind fromLabel(String label) {
            return Labels.parse(Kind.class, label);
        }
    }

    /**
     * Which children wake a parent parked by {@link #awaitChildren(Object, Join)}: all of them, or any one.
     */
    enum Join {
        /** Wake once every child started so far has ended (done, failed or cancelled); at once if none is running. */
        ALL,
        /**
         * Wake once a child ends that the step had not seen ended ({@link StepContext#childrenEnded()}, or what
         * {@link StepContext#children()} showed): a step that handles its children as they end and awaits again is
         * woken once per newly ended child, never for one it has seen. At once if every child has ended.
         */
        ANY;

        /** The lower-case name: this constant's one spelling outside Java code. */
        @JsonValue
        public String label() {
            return Labels.of(this);
        }

        /**
         * The join spelled {@code label}.
         *
         * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
         */
        @JsonCreator
        public static Join fromLabel(String label) {
            return Labels.parse(Join.class, label);
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
     * Continue with {@code step} at {@code at} (a durable timer), storing {@code state}. The instant is written as
     * given and compared with durable's time, the database's clock (a test kit's moved clock); an instant already
     * past runs the step at once.
     */
    static Outcome nextAt(String step, @Nullable Object state, Instant at) {
        return new Next(step, state, untilInstant(at, "next step's instant"), List.of(), at);
    }

    /** Run the same step again after {@code delay} with {@code attempt + 1}, storing {@code state}. */
    static Outcome retry(@Nullable Object state, Duration delay) {
        return new Retry(state, delay);
    }

    /** Run the same step again at once with {@code attempt + 1}, storing {@code state}. */
    static Outcome retry(@Nullable Object state) {
        return new Retry(state, Duration.ZERO);
    }

    /**
     * Run the same step again with {@code attempt + 1}, storing {@code state}, after the delay the step's retry policy
     * gives its attempt (the step's, else the machine's, else the engine's default, {@code dev.durable.machine
     * .RetryPolicy}); or, once the policy gives up, or when the failure the error handler was handed is one the policy
     * does not retry, fail the instance with a reason that says so. What an error handler returns to leave the
     * decision to the policy, as if there were no handler.
     */
    static Outcome retryByPolicy(@Nullable Object state) {
        return new Retry(state, null);
    }

    /** Park until a signal named {@code signal} arrives, then run the same step again; stores {@code state}. */
    static Outcome await(String signal, @Nullable Object state) {
        return new Await(signal, state);
    }

    /**
     * Park until a signal named {@code signal} arrives or {@code timeout} has passed since the outcome was committed,
     * whichever comes first, then run the same step again; stores {@code state}. A zero timeout fires at once
     * (unless the signal is already waiting).
     */
    static Outcome await(String signal, @Nullable Object state, Duration timeout) {
        return new Await(List.of(requireText(signal, "awaited signal name")), state,
                Objects.requireNonNull(timeout, "await timeout must not be null"));
    }

    /**
     * Park until a signal named {@code signal} arrives or the instant {@code deadline} passes. The instant is written
     * as given and compared with durable's time, the database's clock (a test kit's moved clock); one already past
     * fires at once.
     */
    static Outcome awaitUntil(String signal, @Nullable Object state, Instant deadline) {
        return awaitAnyUntil(List.of(requireText(signal, "awaited signal name")), state, deadline);
    }

    /**
     * Park until a signal named any of {@code signals} arrives, then run the same step again; stores
     * {@code state}. The step finds the signals of every awaited name in {@link StepContext#awaited()}.
     */
    static Outcome awaitAny(Collection<String> signals, @Nullable Object state) {
        return new Await(awaitSet(signals), state, null);
    }

    /** {@link #awaitAny(Collection, Object)} with a deadline {@code timeout} after the commit. */
    static Outcome awaitAny(Collection<String> signals, @Nullable Object state, Duration timeout) {
        return new Await(awaitSet(signals), state, Objects.requireNonNull(timeout, "await timeout must not be null"));
    }

    /** {@link #awaitAny(Collection, Object)} with a deadline at the instant {@code deadline}. */
    static Outcome awaitAnyUntil(Collection<String> signals, @Nullable Object state, Instant deadline) {
        return new Await(awaitSet(signals), state, untilInstant(deadline, "await deadline"), null, List.of(),
                deadline);
    }

    /**
     * Park until every child this instance started has ended (done, failed or cancelled), then run the same step
     * again; stores {@code state}. Children started by this very outcome ({@link #startingChildren}) count. The step
     * then reads them with {@link StepContext#children()}. Parks on nothing, and runs again at once, if no child is
     * unfinished.
     */
    static Outcome awaitChildren(@Nullable Object state) {
        return new Await(List.of(), state, null, Join.ALL, List.of());
    }

    /** Park until all, or any, of the children have ended (see {@link Join}); stores {@code state}. */
    static Outcome awaitChildren(@Nullable Object state, Join join) {
        return new Await(List.of(), state, null, Objects.requireNonNull(join, "join must not be null"), List.of());
    }

    /**
     * {@link #awaitChildren(Object, Join)} with a deadline {@code timeout} after the commit: the step runs again at
     * the deadline if the children have not ended by then ({@link StepContext#timedOut()}).
     */
    static Outcome awaitChildren(@Nullable Object state, Join join, Duration timeout) {
        return new Await(List.of(), state, Objects.requireNonNull(timeout, "await timeout must not be null"),
                Objects.requireNonNull(join, "join must not be null"), List.of());
    }

    /**
     * This outcome, also starting {@code children} when it commits (after those it already starts). Only a
     * {@code next}, an {@code await} or a {@code done} can start children: a {@code retry} would start them again on
     * every attempt, and a {@code stop} ends the instance as failed.
     *
     * @throws IllegalArgumentException for a {@code retry} or {@code stop}, or a null child
     */
    default Outcome startingChildren(Collection<Child> children) {
        Objects.requireNonNull(children, "children must not be null");
        if (this instanceof Next next) {
            return new Next(next.step(), next.state(), next.delay(), append(next.children(), children), next.at());
        }
        if (this instanceof Await await) {
            return new Await(await.signals(), await.state(), await.timeout(), await.join(),
                    append(await.children(), children), await.deadline());
        }
        if (this instanceof Done done) {
            return new Done(done.result(), append(done.children(), children));
        }
        throw new IllegalArgumentException("a " + kind().label() + " outcome cannot start children: only next, await "
                + "and done can");
    }

    /** {@link #startingChildren(Collection)} with the children given one by one. */
    default Outcome startingChildren(Child... children) {
        return startingChildren(List.of(children));
    }

    /** The children this outcome starts when it commits; none for a {@code retry} or {@code stop}. */
    default List<Child> children() {
        return List.of();
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

    /**
     * See {@link Outcome#next(String, Object)}.
     *
     * @param delay how long after the commit the step becomes eligible; for an instant, how far it lay ahead on this
     *              node's clock when the outcome was made
     * @param at    the instant the step becomes eligible, when the step gave one ({@link #nextAt}): written as given,
     *              in durable's time, in place of the delay; {@code null} when it gave a delay
     */
    record Next(String step, @Nullable Object state, Duration delay, List<Child> children, @Nullable Instant at)
            implements Outcome {
        public Next {
            requireText(step, "next step");
            Objects.requireNonNull(delay, "next step's delay must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("next step's delay must not be negative, was " + delay);
            }
            children = List.copyOf(children);
        }

        /** A next after {@code delay}, starting {@code children}. */
        public Next(String step, @Nullable Object state, Duration delay, List<Child> children) {
            this(step, state, delay, children, null);
        }

        /** A next after {@code delay}, starting no children. */
        public Next(String step, @Nullable Object state, Duration delay) {
            this(step, state, delay, List.of());
        }

        /** A next at once. */
        public Next(String step, @Nullable Object state) {
            this(step, state, Duration.ZERO);
        }
    }

    /**
     * See {@link Outcome#retry(Object, Duration)} and {@link Outcome#retryByPolicy(Object)}.
     *
     * @param delay how long after the commit the step runs again; {@code null} for the delay of the step's retry
     *              policy
     */
    record Retry(@Nullable Object state, @Nullable Duration delay) implements Outcome {
        public Retry {
            if (delay != null && delay.isNegative()) {
                throw new IllegalArgumentException("retry delay must not be negative, was " + delay);
            }
        }
    }

    /**
     * See {@link Outcome#await(String, Object)} and {@link Outcome#awaitChildren(Object, Join)}.
     *
     * @param signals  the names awaited, each non-blank, no duplicates; at least one unless {@code join} is set
     * @param timeout  how long after the commit the deadline falls; {@code null} for an await without one; for an
     *                 instant, how far it lay ahead on this node's clock when the outcome was made
     * @param join     which of the instance's children wake it; {@code null} when it does not await its children
     * @param children the children this outcome starts
     * @param deadline the deadline, when the step gave an instant ({@link #awaitUntil}): written as given, in
     *                 durable's time, in place of the timeout; {@code null} otherwise
     */
    record Await(List<String> signals, @Nullable Object state, @Nullable Duration timeout, @Nullable Join join,
            List<Child> children, @Nullable Instant deadline) implements Outcome {
        public Await {
            Objects.requireNonNull(signals, "awaited signal names must not be null");
            signals = join != null && signals.isEmpty() ? List.of() : List.copyOf(awaitSet(signals));
            if (timeout != null && timeout.isNegative()) {
                throw new IllegalArgumentException("await timeout must not be negative, was " + timeout);
            }
            children = List.copyOf(children);
            if (deadline != null && timeout == null) {
                throw new IllegalArgumentException("an await with a deadline has a timeout too: " + deadline);
            }
        }

        /** An await on signals and, unless {@code join} is null, children, starting {@code children}. */
        public Await(List<String> signals, @Nullable Object state, @Nullable Duration timeout, @Nullable Join join,
                List<Child> children) {
            this(signals, state, timeout, join, children, null);
        }

        /** An await on signals, with a deadline unless {@code timeout} is null. */
        public Await(List<String> signals, @Nullable Object state, @Nullable Duration timeout) {
            this(signals, state, timeout, null, List.of());
        }

        /** An await on one name, without a deadline. */
        public Await(String signal, @Nullable Object state) {
            this(List.of(requireText(signal, "awaited signal name")), state, null);
        }

        /** The first awaited name (the only one, for an await on a single name); null for a join on children. */
        public @Nullable String signal() {
            return signals.isEmpty() ? null : signals.get(0);
        }
    }

    /** See {@link Outcome#done(Object)}. */
    record Done(@Nullable Object result, List<Child> children) implements Outcome {
        public Done {
            children = List.copyOf(children);
        }

        /** A done starting no children. */
        public Done(@Nullable Object result) {
            this(result, List.of());
        }
    }

    /** See {@link Outcome#stop(String)}. */
    record Stop(String reason) implements Outcome {
        public Stop {
            Objects.requireNonNull(reason, "stop reason must not be null");
        }
    }

    private static List<Child> append(List<Child> first, Collection<Child> more) {
        List<Child> all = new ArrayList<>(first);
        for (Child child : more) {
            all.add(Objects.requireNonNull(child, "a child must not be null"));
        }
        return all;
    }

    private static String requireText(@Nullable String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank, was "
                    + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }

    /** The names of an await set, in the given order: none blank, no duplicates, at least one. */
    private static List<String> awaitSet(@Nullable Collection<String> signals) {
        Objects.requireNonNull(signals, "awaited signal names must not be null");
        if (signals.isEmpty()) {
            throw new IllegalArgumentException("an await needs at least one signal name, was " + signals);
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String signal : signals) {
            if (!names.add(requireText(signal, "awaited signal name in " + signals))) {
                throw new IllegalArgumentException("awaited signal name '" + signal + "' is given twice in "
                        + signals);
            }
        }
        return List.copyOf(names);
    }

    /**
     * The time from now until {@code instant} on this node's clock, zero for an instant already past: what the outcome
     * shows as its delay or timeout; the engine writes the instant itself.
     */
    private static Duration untilInstant(@Nullable Instant instant, String what) {
        Objects.requireNonNull(instant, what + " must not be null");
        return Duration.ofMillis(Math.max(0, instant.toEpochMilli() - System.currentTimeMillis()));
    }
}
