package dev.durable.runtime;

import dev.durable.Outcome;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The transition of one claimed row that a step's outcome asks for, validated and serialized: what the committer
 * writes. Built by the runtime from an {@link Outcome}, whose kind it keeps; the repository turns a batch of them
 * into a few fenced statements. A {@code next} that keeps its claim ({@link #keepsClaim()}) leaves the row executing
 * under the same lease token, and the node runs the next step at once (inline execution of a chain).
 *
 * @param stateJson   the new state as JSON, or {@code null} to keep the stored state untouched
 * @param awaitedIds  the ids of the awaited signals handed to the step: deleted by a {@code NEXT}, ignored by the
 *                    park's re-check of an {@code AWAIT}
 * @param error       {@code RETRY}: the failure that led to it (recorded in last_error), {@code STOP}: the reason
 */
record Transition(Claim claim, Outcome.Kind kind, boolean keepsClaim, @Nullable String step,
        @Nullable String stateJson, long delayMillis, @Nullable String awaits, List<Long> awaitedIds,
        @Nullable String resultJson, @Nullable String error) {

    public Transition {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(kind, "kind");
        awaitedIds = List.copyOf(awaitedIds);
        if (keepsClaim && (kind != Outcome.Kind.NEXT || delayMillis > 0)) {
            throw new IllegalArgumentException("only a next due at once keeps its claim, not " + kind
                    + " after " + delayMillis + " ms");
        }
    }

    public static Transition next(Claim claim, String step, @Nullable String stateJson, List<Long> awaitedIds) {
        return next(claim, step, stateJson, awaitedIds, 0);
    }

    /** A next whose step becomes eligible {@code delayMillis} after the commit (a durable timer when positive). */
    public static Transition next(Claim claim, String step, @Nullable String stateJson, List<Long> awaitedIds,
            long delayMillis) {
        return new Transition(claim, Outcome.Kind.NEXT, false, step, stateJson, delayMillis, null, awaitedIds, null,
                null);
    }

    public static Transition retry(Claim claim, @Nullable String stateJson, long delayMillis,
            @Nullable String error) {
        return new Transition(claim, Outcome.Kind.RETRY, false, null, stateJson, delayMillis, null, List.of(), null, error);
    }

    public static Transition await(Claim claim, String signal, @Nullable String stateJson, List<Long> awaitedIds) {
        return new Transition(claim, Outcome.Kind.AWAIT, false, null, stateJson, 0, signal, awaitedIds, null, null);
    }

    public static Transition done(Claim claim, String resultJson) {
        return new Transition(claim, Outcome.Kind.DONE, false, null, null, 0, null, List.of(), resultJson, null);
    }

    public static Transition stop(Claim claim, String reason) {
        return new Transition(claim, Outcome.Kind.STOP, false, null, null, 0, null, List.of(), null, reason);
    }

    /** This {@code next}, keeping the claim for the next step. */
    public Transition keepingClaim() {
        return new Transition(claim, kind, true, step, stateJson, delayMillis, awaits, awaitedIds, resultJson,
                error);
    }

    public long id() {
        return claim.id();
    }
}
