package dev.durable.runtime.queue;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link QueueDecider} decided on one event, for its {@link QueueOwner} to carry out once it has let go of its
 * lock: steps to start, claims to check or hand back, steps to interrupt, whether to wake the poller, and, for the
 * events that ask, what becomes of a step whose user code is over, or the poller's next move. Lists are made only when
 * something is in them: the usual event (a step's user code is over, a claim ends) starts at most one step.
 *
 * @param <C> the owner's claims
 */
final class Decisions<C extends HeldClaim> {

    /** What becomes of a step whose user code is over. */
    enum AfterUserCode {
        /** Its outcome goes to the committer, and the claim ends once it is written. */
        COMMIT,
        /** Its outcome goes to the committer, and the claim goes on with the next step (a continuation). */
        CONTINUE,
        /** The row was handed back meanwhile (the node stops): the outcome is discarded. */
        DISCARD
    }

    private @Nullable List<C> start;
    private @Nullable List<C> check;
    private @Nullable List<C> refresh;
    private @Nullable List<C> dropped;
    private @Nullable List<C> handBack;
    private @Nullable List<C> interrupt;
    private @Nullable InterruptReason reason;
    private boolean wakePoller;
    private @Nullable AfterUserCode afterUserCode;
    private @Nullable Poll poll;

    /** Claims that took a slot: each starts its step on a step thread now. */
    List<C> start() {
        return start == null ? List.of() : start;
    }

    /**
     * Claims that took a slot after waiting past {@link QueueDecider#CHECK_AFTER_NANOS}: their rows are checked, in one
     * statement, and the answer goes back to the decider ({@link QueueDecider#checked}) before any of them starts.
     */
    List<C> check() {
        return check == null ? List.of() : check;
    }

    /**
     * Claims still waiting whose rows are read in the same statement as {@link #check()}'s, without a slot: the answer
     * goes back to the decider ({@link QueueDecider#refreshed}), and those still held need no check of their own for a
     * while.
     */
    List<C> refresh() {
        return refresh == null ? List.of() : refresh;
    }

    /** Claims that ended without running (their instance was cancelled, or their lease lost, while they waited). */
    List<C> dropped() {
        return dropped == null ? List.of() : dropped;
    }

    /**
     * Claims to hand back to runnable in one fenced statement (the node stops); once written, the decider hears of it
     * ({@link QueueDecider#handedBack}).
     */
    List<C> handBack() {
        return handBack == null ? List.of() : handBack;
    }

    /** Steps in user code to interrupt, for {@link #reason()}. */
    List<C> interrupt() {
        return interrupt == null ? List.of() : interrupt;
    }

    @Nullable InterruptReason reason() {
        return reason;
    }

    /** Whether the poller, asleep, must be woken: a pick is worth making. */
    boolean wakesPoller() {
        return wakePoller;
    }

    /** For {@link QueueDecider#userCodeOver}: what becomes of the step's outcome. */
    @Nullable AfterUserCode afterUserCode() {
        return afterUserCode;
    }

    /** For the poller's events: what it does next. */
    @Nullable Poll poll() {
        return poll;
    }

    /** Whether nothing is to be done. */
    boolean none() {
        return start == null && check == null && refresh == null && dropped == null && handBack == null
                && interrupt == null && !wakePoller;
    }

    void start(C claim) {
        start = add(start, claim);
    }

    void check(C claim) {
        check = add(check, claim);
    }

    void refresh(C claim) {
        refresh = add(refresh, claim);
    }

    void dropped(C claim) {
        dropped = add(dropped, claim);
    }

    void handBack(C claim) {
        handBack = add(handBack, claim);
    }

    void interrupt(C claim, InterruptReason why) {
        interrupt = add(interrupt, claim);
        reason = why;
    }

    void wakePoller() {
        wakePoller = true;
    }

    void afterUserCode(AfterUserCode afterUserCode) {
        this.afterUserCode = afterUserCode;
    }

    void poll(Poll next) {
        this.poll = next;
    }

    private static <C> List<C> add(@Nullable List<C> list, C claim) {
        List<C> to = list == null ? new ArrayList<>(2) : list;
        to.add(claim);
        return to;
    }

    @Override
    public String toString() {
        return "Decisions[start=" + start() + ", check=" + check() + ", refresh=" + refresh() + ", dropped="
                + dropped() + ", handBack=" + handBack() + ", interrupt=" + interrupt() + ", wakePoller=" + wakePoller
                + ", afterUserCode=" + afterUserCode + ", poll=" + poll + "]";
    }

    /**
     * The poller's next move: pick up to {@code limit} rows, or pause for {@code pauseNanos} (unless woken), or, when
     * {@code untilNextDue}, pause until the queue's next waiting row falls due, at most {@code pauseNanos}.
     */
    record Poll(int limit, long pauseNanos, boolean untilNextDue) {

        static final Poll AGAIN = new Poll(0, 0, false);

        static Poll pick(int limit) {
            return new Poll(limit, 0, false);
        }

        static Poll pause(long nanos) {
            return nanos <= 0 ? AGAIN : new Poll(0, nanos, false);
        }

        static Poll untilNextDue(long longestNanos) {
            return new Poll(0, longestNanos, true);
        }

        boolean picks() {
            return limit > 0;
        }
    }
}
