package dev.durable.runtime.queue;

import org.jspecify.annotations.Nullable;

/**
 * A claim this node holds, as its queue's owner sees it: the row's id and lease token, and where the claim is in its
 * life at the owner (docs/DESIGN.md, "The life of a step"):
 *
 * <pre>
 * WAITING -> RUNNING -> COMMITTING -> ENDED       a claimed row takes a slot, runs, hands its outcome over, ends
 * WAITING -> CHECKING -> RUNNING | ENDED          one that waited past the bound is checked against its row first
 * COMMITTING -> WAITING                           the next step of an inline chain, on the same claim
 * WAITING | CHECKING | RUNNING -> RELEASED -> ENDED   handed back by a stopping node
 * </pre>
 *
 * <p>Every field but the id and lease token belongs to the {@link QueueDecider} of the claim's queue, which alone changes
 * them, under its {@link QueueOwner}'s lock; {@link #phase()} may be read without it (a node view, a zombie watch).
 */
class HeldClaim {

    /** Where a claim is at its queue's owner. */
    enum Phase {
        /** Claimed, waiting for a slot of its queue. */
        WAITING,
        /** In a slot, but waited so long that its row is checked before its step starts. */
        CHECKING,
        /** In a slot: its step runs user code (or is about to). */
        RUNNING,
        /** Its outcome is with the committer; it can no longer be released or interrupted. */
        COMMITTING,
        /** Handed back to runnable by a stopping node; whatever its step returns is discarded. */
        RELEASED,
        /** Done with: no longer this node's. */
        ENDED
    }

    private final long id;
    private final long leaseToken;
    private final boolean partitioned;

    private volatile Phase phase = Phase.WAITING;
    /** When (System.nanoTime) the claim was last known to hold its row: the pick or commit that made it was sent. */
    long heldSince;
    /** When (System.nanoTime) the current step took its slot. */
    long startedAt;
    /** Whether the claim holds one of its queue's slots. */
    boolean holdsSlot;
    /** Whether a thread (its step's, or the check's) holds the claim: that thread reports its end. */
    boolean inHand;
    /** Whether the claim counts as committing at its queue: its outcome is with the committer and ends it. */
    boolean committing;
    /** Whether a read of the row is under way while the claim waits (a refresh: {@link QueueDecider#refreshed}). */
    boolean refreshing;
    /** When (System.nanoTime) the last refresh was decided: its read is sent later, so the row was held by then. */
    long refreshDecidedAt;
    /** Why a claim being checked turned out to be gone meanwhile (a cancel, a lost lease); null while it is not. */
    @Nullable InterruptReason goneWhileChecking;
    /** The neighbours in the owner's list of held claims. */
    @Nullable HeldClaim previousHeld;
    @Nullable HeldClaim nextHeld;

    HeldClaim(long id, long leaseToken, boolean partitioned) {
        this.id = id;
        this.leaseToken = leaseToken;
        this.partitioned = partitioned;
    }

    final long id() {
        return id;
    }

    final long leaseToken() {
        return leaseToken;
    }

    /** Whether the row has a partition key: its claim's end may let the key's next row be picked. */
    final boolean partitioned() {
        return partitioned;
    }

    final Phase phase() {
        return phase;
    }

    /**
     * Marks this waiting claim for a read of its row beside a check, if it has waited past {@code afterNanos} and no
     * read of it is under way. The claims waiting behind one that waited past the bound were mostly claimed with it (a
     * pick's rows share their {@code heldSince}): the statement that checks it reads theirs too, without a slot, so
     * that each does not hold a slot for a read of its own when its turn comes (one read per claim cost a drain at the
     * defaults up to a tenth of PostgreSQL's time; docs/PERFORMANCE.md, "The cost of a step").
     */
    final boolean refreshFrom(long now, long afterNanos) {
        if (refreshing || now - heldSince <= afterNanos) {
            return false;
        }
        refreshing = true;
        refreshDecidedAt = now;
        return true;
    }

    /**
     * The read of a refresh answered: a claim still waiting that was found held is known held since the refresh was
     * decided (its read was sent later). Returns whether one found gone ends without running: it does if it still
     * waits and has not been known held since (an inline chain's commit). A claim that took its slot meanwhile is left
     * to its own check, whose read is the later one.
     */
    final boolean refreshed(boolean held) {
        refreshing = false;
        if (phase != Phase.WAITING) {
            return false;
        }
        if (held) {
            heldSince = Math.max(heldSince, refreshDecidedAt);
            return false;
        }
        return refreshDecidedAt - heldSince >= 0;
    }

    final void phase(Phase phase) {
        this.phase = phase;
    }
}
