package dev.durable.jdbc;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A validated, serialized outcome ready to be written for one claim. Built by the runtime from an
 * {@code Outcome}; the repository turns a batch of them into a few fenced statements.
 *
 * @param stateJson   the new state as JSON, or {@code null} to keep the stored state untouched
 * @param awaitedIds  the ids of the awaited signals handed to the step: deleted by a {@code NEXT}, ignored by the
 *                    park's re-check of an {@code AWAIT}
 * @param error       {@code RETRY}: the failure that led to it (recorded in last_error), {@code FAIL}: the reason
 */
public record OutcomeWrite(Claim claim, Kind kind, @Nullable String step, @Nullable String stateJson,
        long delayMillis, @Nullable String awaits, List<Long> awaitedIds, @Nullable String resultJson,
        @Nullable String error) {

    /**
     * {@code CONTINUE} is a {@code next} that keeps the claim: the row stays executing under the same lease token
     * and the node runs the next step at once (inline execution of a chain).
     */
    public enum Kind { NEXT, CONTINUE, RETRY, AWAIT, DONE, FAIL }

    public OutcomeWrite {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(kind, "kind");
        awaitedIds = List.copyOf(awaitedIds);
    }

    public static OutcomeWrite next(Claim claim, String step, @Nullable String stateJson, List<Long> awaitedIds) {
        return new OutcomeWrite(claim, Kind.NEXT, step, stateJson, 0, null, awaitedIds, null, null);
    }

    public static OutcomeWrite retry(Claim claim, @Nullable String stateJson, long delayMillis,
            @Nullable String error) {
        return new OutcomeWrite(claim, Kind.RETRY, null, stateJson, delayMillis, null, List.of(), null, error);
    }

    public static OutcomeWrite await(Claim claim, String signal, @Nullable String stateJson, List<Long> awaitedIds) {
        return new OutcomeWrite(claim, Kind.AWAIT, null, stateJson, 0, signal, awaitedIds, null, null);
    }

    public static OutcomeWrite done(Claim claim, String resultJson) {
        return new OutcomeWrite(claim, Kind.DONE, null, null, 0, null, List.of(), resultJson, null);
    }

    public static OutcomeWrite fail(Claim claim, String reason) {
        return new OutcomeWrite(claim, Kind.FAIL, null, null, 0, null, List.of(), null, reason);
    }

    /** This {@code next} as a {@code continue}: the same write, keeping the claim for the next step. */
    public OutcomeWrite keepingClaim() {
        if (kind != Kind.NEXT) {
            throw new IllegalStateException("only a next outcome can keep its claim, not " + kind);
        }
        return new OutcomeWrite(claim, Kind.CONTINUE, step, stateJson, delayMillis, awaits, awaitedIds, resultJson,
                error);
    }

    public long id() {
        return claim.id();
    }
}
