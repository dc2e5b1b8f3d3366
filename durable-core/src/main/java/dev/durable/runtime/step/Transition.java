package dev.durable.runtime.step;

import dev.durable.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The transition of one claimed row that a step's outcome asks for, validated and serialized: what the committer
 * writes. Built by the runtime from an {@link Outcome}, whose kind it keeps; the repository turns a batch of them
 * into a few fenced statements. A {@code next} that keeps its claim ({@link #continues()}) leaves the row executing
 * under the same lease token, and the node runs the next step at once (inline execution of a chain).
 *
 * @param run           the run of the step that decided it, as the instance's history records it
 * @param stateJson     the new state as JSON, or {@code null} to keep the stored state untouched
 * @param awaits        {@code AWAIT}: the names parked on; empty for the other kinds, and for a join on children only
 * @param timeoutMillis {@code AWAIT}: the deadline's distance from the commit, or {@code null} for no deadline
 * @param awaitedIds    the ids of the awaited signals handed to the step: deleted by a {@code NEXT}, ignored by the
 *                      park's re-check of an {@code AWAIT}
 * @param error         {@code RETRY}: the failure that led to it (recorded in last_error), {@code STOP}: the reason
 * @param join          {@code AWAIT}: which of the instance's children wake it, or {@code null} if it does not await
 *                      them
 * @param childrenSeen  {@code AWAIT} with a join: how many ended children the step saw, so that a join on any child
 *                      waits for one more
 * @param children      the child instances this transition starts if it commits
 * @param suspension    {@code RETRY} only: why the row is suspended instead of retried (its stored state would lose
 *                      properties, or its upcast failed): it stays runnable but is never picked until an operator
 *                      retries it, and nothing of it but that is written (docs/DESIGN.md, "Suspension")
 * @param upgrade       what the commit writes besides the outcome because the row was stored by older code: the
 *                      version the step ran on, its current name, an upcast state; {@code null} when the row is
 *                      current
 * @param continuesBefore for a {@code next} that keeps its claim: how many continuations of the same claim committed
 *                        before this one (the inline chain's steps that ran on it before this step); written again
 *                        after an ambiguous commit, the continuation records its history entry only if the claim
 *                        has no more than these (docs/DESIGN.md, "Fencing", ambiguous commits); 0 otherwise
 * @param at            {@code NEXT}: the instant the next step becomes eligible, {@code AWAIT}: the deadline, when the
 *                      step gave an instant: written as given, in durable's time (docs/DESIGN.md, "Timers and
 *                      deadlines"), in place of {@code delayMillis} or {@code timeoutMillis}; {@code null} otherwise
 * @param patch         the change of the state the commit writes, as its history entry records it (an RFC 6902 patch
 *                      from the state the step ran on); {@code null} when it changes nothing or patches are off
 *                      (docs/DESIGN.md, "History", patches)
 * @param upcastPatch   the change the upcast made, from the stored state to the one the step ran on; {@code null}
 *                      without an upcast, or when it changed nothing
 */
public record Transition(Claim claim, Run run, Outcome.Kind kind, boolean continues, @Nullable String step,
        @Nullable String stateJson, long delayMillis, List<String> awaits, @Nullable Long timeoutMillis,
        List<Long> awaitedIds, @Nullable String resultJson, @Nullable String error, Outcome.@Nullable Join join,
        int childrenSeen, List<NewChild> children, @Nullable String suspension,
        @Nullable Upgrade upgrade, int continuesBefore, @Nullable Instant at, @Nullable String patch,
        @Nullable String upcastPatch) {

    /**
     * The run of a step that ended in a transition.
     *
     * @param step           the step that ran
     * @param attempt        its attempt
     * @param durationMillis how long it ran, as this node measured it; {@code null} until the executor says
     * @param traceLink      a link to the span of the run, as stored text, which a park or a retry leaves in the row
     *                       and the children it starts carry (docs/DESIGN.md, "Tracing"); null without tracing
     */
    public record Run(String step, int attempt, @Nullable Long durationMillis, @Nullable String traceLink) {
    }

    public Transition {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(kind, "kind");
        awaits = List.copyOf(awaits);
        awaitedIds = List.copyOf(awaitedIds);
        children = List.copyOf(children);
        if (kind == Outcome.Kind.AWAIT ? awaits.isEmpty() && join == null : !awaits.isEmpty() || join != null) {
            throw new IllegalArgumentException("an await, and only an await, names signals or joins its children: "
                    + kind + " " + awaits + " " + join);
        }
        if (!children.isEmpty() && (kind == Outcome.Kind.RETRY || kind == Outcome.Kind.STOP)) {
            throw new IllegalArgumentException("a " + kind + " starts no children");
        }
        if (continues && (kind != Outcome.Kind.NEXT || delayMillis > 0 || at != null)) {
            throw new IllegalArgumentException("only a next due at once keeps its claim, not " + kind
                    + " after " + delayMillis + " ms");
        }
        if (continuesBefore < 0 || !continues && continuesBefore != 0) {
            throw new IllegalArgumentException("only a next that keeps its claim counts the continuations before it,"
                    + " and never fewer than none: " + continuesBefore);
        }
        if (suspension != null && (kind != Outcome.Kind.RETRY || stateJson != null || upgrade != null
                || delayMillis != 0)) {
            throw new IllegalArgumentException("a suspension is a retry that writes nothing but itself");
        }
    }

    public static Transition next(ClaimedStep claimed, String step, @Nullable String stateJson,
            List<Long> awaitedIds) {
        return next(claimed, step, stateJson, awaitedIds, 0, null);
    }

    /**
     * A next whose step becomes eligible {@code delayMillis} after the commit (a durable timer when positive), or at
     * {@code at} unless null.
     */
    public static Transition next(ClaimedStep claimed, String step, @Nullable String stateJson, List<Long> awaitedIds,
            long delayMillis, @Nullable Instant at) {
        return new Transition(claimed.claim(), runOf(claimed), Outcome.Kind.NEXT, false, step, stateJson, delayMillis,
                List.of(), null, awaitedIds, null, null, null, 0, List.of(), null, null, 0, at, null, null);
    }

    public static Transition retry(ClaimedStep claimed, @Nullable String stateJson, long delayMillis,
            @Nullable String error) {
        return new Transition(claimed.claim(), runOf(claimed), Outcome.Kind.RETRY, false, null, stateJson,
                delayMillis, List.of(), null, List.of(), null, error, null, 0, List.of(), null, null, 0, null, null,
                null);
    }

    public static Transition await(ClaimedStep claimed, String signal, @Nullable String stateJson,
            List<Long> awaitedIds) {
        return await(claimed, List.of(signal), null, 0, null, null, stateJson, awaitedIds);
    }

    /** A park on any of {@code signals}, with a deadline {@code timeoutMillis} after the commit unless null. */
    public static Transition await(ClaimedStep claimed, List<String> signals, @Nullable Long timeoutMillis,
            @Nullable String stateJson, List<Long> awaitedIds) {
        return await(claimed, signals, null, 0, timeoutMillis, null, stateJson, awaitedIds);
    }

    /**
     * A park on any of {@code signals} and, unless {@code join} is null, on the instance's children, with a deadline
     * {@code timeoutMillis} after the commit unless null, or at {@code at} unless null.
     */
    public static Transition await(ClaimedStep claimed, List<String> signals, Outcome.@Nullable Join join,
            int childrenSeen, @Nullable Long timeoutMillis, @Nullable Instant at, @Nullable String stateJson,
            List<Long> awaitedIds) {
        return new Transition(claimed.claim(), runOf(claimed), Outcome.Kind.AWAIT, false, null, stateJson, 0, signals,
                timeoutMillis, awaitedIds, null, null, join, childrenSeen, List.of(), null, null, 0, at, null, null);
    }

    public static Transition done(ClaimedStep claimed, String resultJson) {
        return new Transition(claimed.claim(), runOf(claimed), Outcome.Kind.DONE, false, null, null, 0, List.of(),
                null, List.of(), resultJson, null, null, 0, List.of(), null, null, 0, null, null, null);
    }

    public static Transition stop(ClaimedStep claimed, String reason) {
        return new Transition(claimed.claim(), runOf(claimed), Outcome.Kind.STOP, false, null, null, 0, List.of(),
                null, List.of(), null, reason, null, 0, List.of(), null, null, 0, null, null, null);
    }

    /**
     * The suspension of a claimed row whose step was not run ({@code reason}, recorded in last_error too): the row goes
     * back to runnable, its attempt, state, version and step untouched, and is never picked until an operator retries
     * it (docs/DESIGN.md, "Suspension").
     */
    public static Transition suspend(ClaimedStep claimed, String reason) {
        return new Transition(claimed.claim(), runOf(claimed), Outcome.Kind.RETRY, false, null, null, 0, List.of(),
                null, List.of(), null, reason, null, 0, List.of(), reason, null, 0, null, null, null);
    }

    private static Run runOf(ClaimedStep claimed) {
        return new Run(claimed.step(), claimed.attempt(), null, null);
    }

    /** {@code AWAIT}: the first name parked on, stored in {@code awaits}. */
    public @Nullable String firstAwaited() {
        return awaits.isEmpty() ? null : awaits.get(0);
    }

    /**
     * The state the commit writes: the outcome's, else an upcast state the outcome keeps (a terminal outcome's), else
     * {@code null} to keep the stored one.
     */
    public @Nullable String storedState() {
        return stateJson != null || upgrade == null ? stateJson : upgrade.stateJson();
    }

    /** The version the commit writes, or {@code null} to keep the row's. */
    public @Nullable Integer upgradedVersion() {
        return upgrade == null ? null : upgrade.version();
    }

    /** The step name the commit writes where the outcome keeps the step, or {@code null} to keep the row's. */
    public @Nullable String renamedStep() {
        return upgrade == null ? null : upgrade.step();
    }

    /**
     * This {@code next}, keeping the claim for the next step; {@code continuesBefore} continuations of the claim
     * committed before it.
     */
    public Transition continuing(int continuesBefore) {
        return new Transition(claim, run, kind, true, step, stateJson, delayMillis, awaits, timeoutMillis, awaitedIds,
                resultJson, error, join, childrenSeen, children, suspension, upgrade, continuesBefore, at, patch,
                upcastPatch);
    }

    /** This transition, also starting {@code more} children when it commits. */
    public Transition startingChildren(List<NewChild> more) {
        List<NewChild> all = new ArrayList<>(children);
        all.addAll(more);
        return new Transition(claim, run, kind, continues, step, stateJson, delayMillis, awaits, timeoutMillis,
                awaitedIds, resultJson, error, join, childrenSeen, all, suspension, upgrade, continuesBefore, at,
                patch, upcastPatch);
    }

    /** This transition, its step having run for {@code durationMillis}, its span linked as {@code traceLink}. */
    public Transition took(long durationMillis, @Nullable String traceLink) {
        return new Transition(claim, new Run(run.step(), run.attempt(), durationMillis, traceLink), kind, continues,
                step, stateJson, delayMillis, awaits, timeoutMillis, awaitedIds, resultJson, error, join, childrenSeen,
                children, suspension, upgrade, continuesBefore, at, patch, upcastPatch);
    }

    /**
     * This transition, also writing {@code upgrade} into the row (docs/DESIGN.md, "Upcasting"); the history records
     * the step by its current name.
     */
    public Transition upgrading(Upgrade upgrade) {
        return new Transition(claim, new Run(upgrade.step(), run.attempt(), run.durationMillis(), run.traceLink()),
                kind, continues, step, stateJson, delayMillis, awaits, timeoutMillis, awaitedIds, resultJson, error,
                join, childrenSeen, children, suspension, upgrade, continuesBefore, at, patch, upcastPatch);
    }

    /**
     * A stop of the same claim and run, in place of this transition, which the database refused ({@code reason}). It
     * upgrades nothing: the row fails as stored.
     */
    public Transition refused(String reason) {
        return new Transition(claim, run, Outcome.Kind.STOP, false, null, null, 0, List.of(), null, List.of(), null,
                reason, null, 0, List.of(), null, null, 0, null, null, null);
    }

    /**
     * This transition, its history entry recording {@code patch} and {@code upcastPatch} (docs/DESIGN.md, "History",
     * patches).
     */
    public Transition patched(@Nullable String patch, @Nullable String upcastPatch) {
        return new Transition(claim, run, kind, continues, step, stateJson, delayMillis, awaits, timeoutMillis,
                awaitedIds, resultJson, error, join, childrenSeen, children, suspension, upgrade, continuesBefore, at,
                patch, upcastPatch);
    }

    public long id() {
        return claim.id();
    }
}
