package dev.durable.runtime.queue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of one queue's owner on this node, and everything they rest on: its slots, its claims (waiting,
 * being checked, running, committing), the prefetch estimate, the backlog and the gathering of ending claims, and the
 * pause of the probe's finds after futile picks (docs/DESIGN.md, "The life of a step"). Events come in, decisions go
 * out ({@link Decisions}); it runs no thread, reads no clock (every event brings the time, {@code System.nanoTime()})
 * and touches no database, so the whole wake-up protocol is tested without one ({@code QueueDeciderTest}). It is not
 * thread-safe: its {@link QueueOwner} calls it under one lock and carries out the decisions after letting go.
 *
 * <p>A <b>slot</b> is the right to run user code, taken when a step starts and given back when it hands its outcome
 * to the committer; a <b>claim</b> is a row this node holds for the queue, from the pick until it ends.
 *
 * @param <C> the claims, as the owner holds them
 */
final class QueueDecider<C extends HeldClaim> {

    /**
     * A claim that waited longer than this since its row was last known held (its pick or its continuation's commit
     * was sent) is checked against its row before its step starts: its instance may have been cancelled meanwhile
     * (docs/DESIGN.md, "Cancel"). Five times the prefetch horizon, so that the rows of fast steps, which wait well
     * under it, are never checked.
     */
    static final long CHECK_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * The longest the poller ignores the probe after picks the probe asked for found nothing (the due rows are not this
     * node's to take); the pause starts at a poll interval and doubles with every such pick in a row, up to this.
     */
    static final long AFTER_FUTILE_PICK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The longest the poller sleeps without being woken: only a safety net, wakes tell it of work. */
    static final long LONGEST_PAUSE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final int concurrency;
    private final int batchSize;
    private final long batchWindowNanos;
    private final long pollIntervalNanos;

    // Slots and claims.
    private int freeSlots;
    /** Claims promised to rows a local start is inserting: they count as claims until the rows arrive. */
    private int promised;
    private int committing;
    private final ArrayDeque<C> waiting = new ArrayDeque<>();
    private final ClaimList<C> held = new ClaimList<>();
    private final Prefetch prefetch;

    // The poller.
    private boolean paused;
    /** The node works the queue: it started, and is not stopping. */
    private boolean working;
    private boolean draining;
    /** The poller's pick is out: no promise to a local start until its rows are in. */
    private boolean picking;
    /** The last pick found as many rows as it asked for: more are likely due. */
    private boolean backlog;
    private boolean gathering;
    private long gatherUntil;
    /** The poller sleeps because nothing was claimable: the first event that makes room wakes it. */
    private boolean waitsForRoom;
    /** The poller is between its turns (or not running): a wake must reach its thread. */
    private boolean pollerAsleep = true;
    /** A wake reached the sleeping poller's thread and its next turn has not begun: more wakes add nothing. */
    private boolean wakeSent;
    /** A wake came while the poller was picking: its turn ends with another at once. */
    private boolean pollAgain;
    private boolean wokenByProbe;
    private boolean pickByProbe;
    private long probeIgnoredUntil;
    private long futilePauseNanos;

    QueueDecider(int concurrency, int batchSize, Duration batchWindow, Duration pollInterval) {
        this.concurrency = concurrency;
        this.batchSize = batchSize;
        this.batchWindowNanos = batchWindow.toNanos();
        this.pollIntervalNanos = pollInterval.toNanos();
        this.freeSlots = concurrency;
        this.prefetch = new Prefetch(concurrency, batchSize);
    }

    // ---- The poller's events

    /** The node starts (again): the queue is worked; its poller's first turn comes at once. */
    void start() {
        working = true;
        draining = false;
        picking = false;
        pollerAsleep = true;
        wakeSent = false;
        pollAgain = false;
    }

    /**
     * The poller's turn: pick, or how long to sleep. It picks nothing while the queue is paused, the node stops or the
     * deploy check holds it back ({@code mayPick}), nor while nothing is claimable (the first claim that makes room
     * wakes it). While the queue has a backlog and only part of a batch is claimable but claims are committing, it
     * waits up to the batch window for them, so that one pick replaces several small ones; without a backlog it picks
     * at once (what woke it is a start or a signal, which would only wait).
     */
    Decisions.Poll poll(long now, boolean mayPick) {
        pollerAsleep = false;
        wakeSent = false;
        pollAgain = false;
        pickByProbe = wokenByProbe;
        wokenByProbe = false;
        if (paused || draining || !mayPick) {
            return sleep(LONGEST_PAUSE_NANOS); // resumed, started or let go by the deploy check: each wakes it
        }
        int limit = claimable();
        if (limit <= 0) {
            waitsForRoom = true;
            return sleep(LONGEST_PAUSE_NANOS);
        }
        if (limit < batchSize && backlog && committing > 0 && batchWindowNanos > 0) {
            if (!gathering) {
                gathering = true;
                gatherUntil = now + batchWindowNanos;
            }
            long left = gatherUntil - now;
            if (left > 0) {
                return sleep(left);
            }
        }
        gathering = false;
        picking = true;
        return Decisions.Poll.pick(limit);
    }

    /**
     * The poller's pick, sent at {@code sentAt}, claimed {@code rows} of the {@code asked} (fewer if a cluster-wide
     * limit held it back, {@code heldBack}: a backlog): they wait for a slot, in pick order. A full batch, or a partial
     * one of partitioned rows while room is left (a row per key: a hot key hides others), is followed by another pick
     * at once; else the poller sleeps until the next row falls due, at most a poll interval if it found work, or woken.
     */
    Decisions<C> picked(List<C> rows, int asked, boolean heldBack, long sentAt, long now) {
        Decisions<C> decisions = new Decisions<>();
        picking = false;
        backlog = rows.size() == asked || heldBack;
        if (pickByProbe && rows.isEmpty()) {
            futilePauseNanos = futilePauseNanos == 0 ? pollIntervalNanos
                    : Math.min(futilePauseNanos * 2, AFTER_FUTILE_PICK_NANOS);
            probeIgnoredUntil = now + futilePauseNanos;
        } else if (!rows.isEmpty()) {
            futilePauseNanos = 0;
        }
        boolean partitioned = false;
        for (C claim : rows) {
            hold(claim);
            claim.heldSince = sentAt;
            partitioned |= claim.partitioned();
            if (draining) {
                claim.phase(HeldClaim.Phase.RELEASED);
                decisions.handBack(claim);
            } else {
                waiting.addLast(claim);
            }
        }
        dispatch(decisions, now);
        if (rows.size() == asked || (partitioned && claimable() > 0)) {
            decisions.poll(Decisions.Poll.AGAIN);
        } else if (pollAgain) {
            pollAgain = false;
            decisions.poll(Decisions.Poll.AGAIN);
        } else {
            pollerAsleep = true;
            decisions.poll(Decisions.Poll.untilNextDue(rows.isEmpty() ? LONGEST_PAUSE_NANOS : pollIntervalNanos));
        }
        return decisions;
    }

    /** The pick failed (the poller's loop backs off): wakes reach the poller again. */
    void pickFailed() {
        picking = false;
        pollerAsleep = true;
        wakeSent = false;
    }

    /**
     * Local work arrived (a start, a signal, rows a commit or the reaper made runnable, a resume): the poller looks
     * now. Whether its thread must be woken: not while it picks (its turn ends with another) nor when a wake is on
     * its way.
     */
    boolean wake() {
        if (!pollerAsleep) {
            pollAgain = true;
            return false;
        }
        if (wakeSent) {
            return false;
        }
        wakeSent = true;
        return true;
    }

    /** The probe found a due row on the queue, made by any node: the poller looks, unless such finds led nowhere. */
    boolean workFound(long now) {
        if (futilePauseNanos > 0 && now - probeIgnoredUntil < 0) {
            return false;
        }
        wokenByProbe = true;
        return wake();
    }

    void pause() {
        paused = true;
    }

    /** Whether the poller's thread must be woken. */
    boolean resume() {
        paused = false;
        return wake();
    }

    // ---- Local starts (docs/DESIGN.md, "Local starts")

    /**
     * A local start asks for a claim for a row it is about to insert: promised only if the row would start here at
     * once — the node works the queue, it is not paused, the last pick found no backlog, no pick is out, no claimed row
     * waits, a slot is free that no earlier promise took, and a pick could claim a row now. The promise counts as a
     * claim from now on, until the row arrives ({@link #claimedAtStart}) or it is taken back ({@link #unpromise}).
     */
    boolean promise() {
        if (!working || paused || backlog || picking || !waiting.isEmpty() || freeSlots - promised <= 0
                || claimable() <= 0) {
            return false;
        }
        promised++;
        return true;
    }

    /** A promise is taken back: the start did not claim its row, or rolled back. */
    Decisions<C> unpromise() {
        Decisions<C> decisions = new Decisions<>();
        promised = Math.max(0, promised - 1);
        roomMayHaveCome(decisions);
        return decisions;
    }

    /**
     * The start whose rows were promised claims committed them, claimed, and known held since {@code heldSince}: they
     * join the queue as picked rows do, and start in the slots they were promised. A node that stops meanwhile hands
     * them back.
     */
    Decisions<C> claimedAtStart(List<C> rows, long heldSince, long now) {
        Decisions<C> decisions = new Decisions<>();
        for (C claim : rows) {
            promised = Math.max(0, promised - 1);
            hold(claim);
            claim.heldSince = heldSince;
            if (working) {
                waiting.addLast(claim);
            } else {
                claim.phase(HeldClaim.Phase.RELEASED);
                decisions.handBack(claim);
            }
        }
        dispatch(decisions, now);
        return decisions;
    }

    // ---- The steps' events

    /**
     * A step's user code is over ({@code mayContinue}: its outcome is a {@code next} that may continue on the claim).
     * Its slot is free at once and starts the next waiting row while its outcome commits; a claim whose commit ends it
     * counts as committing (room for the next pick) from now. A row handed back meanwhile (the node stops) keeps its
     * slot until its step ends, and its outcome is discarded.
     */
    Decisions<C> userCodeOver(C claim, boolean mayContinue, long now) {
        Decisions<C> decisions = new Decisions<>();
        if (claim.phase() != HeldClaim.Phase.RUNNING) {
            if (claim.phase() != HeldClaim.Phase.RELEASED) {
                throw new IllegalStateException("only a running step's user code ends, not one " + claim.phase());
            }
            decisions.afterUserCode(Decisions.AfterUserCode.DISCARD);
            return decisions;
        }
        claim.phase(HeldClaim.Phase.COMMITTING);
        prefetch.timed(now - claim.startedAt);
        freeSlot(claim);
        boolean continues = mayContinue && !draining;
        if (!continues) {
            claim.committing = true;
            committing++;
        }
        decisions.afterUserCode(continues ? Decisions.AfterUserCode.CONTINUE : Decisions.AfterUserCode.COMMIT);
        dispatch(decisions, now);
        roomMayHaveCome(decisions);
        return decisions;
    }

    /**
     * A claim ended (its outcome written, fenced off, abandoned or discarded; or its step never committed): its slot,
     * if it still held one, is free. The poller hears of it when a pick is worth making (docs/DESIGN.md, "The life of
     * a step", 6.); {@code leavesWork}: a committed {@code next}, {@code retry} or {@code await}, or a partitioned
     * row's end, may have left a row to pick. A second end of the same claim changes nothing.
     */
    Decisions<C> ended(C claim, boolean leavesWork, long now) {
        Decisions<C> decisions = new Decisions<>();
        end(claim, leavesWork, true, now, decisions);
        return decisions;
    }

    /**
     * A claim that took a slot ended before its step's user code began: its claim went between the start decision and
     * its thread (a cancel, a lost lease, a hand-back), or no thread would take it. Like {@link #ended}, but its slot
     * is given back untimed.
     */
    Decisions<C> neverRan(C claim, long now) {
        Decisions<C> decisions = new Decisions<>();
        end(claim, false, false, now, decisions);
        return decisions;
    }

    /**
     * The outcome of an inline chain's step committed and the claim goes on with the next step, whose row was last
     * known held at {@code heldSince} (its commit was sent then): it waits for a slot ahead of the queue's claimed
     * rows. A stopping node hands it back instead.
     */
    Decisions<C> continued(C claim, long heldSince, long now) {
        if (claim.phase() != HeldClaim.Phase.COMMITTING || claim.committing) {
            throw new IllegalStateException("only a committed step that kept its claim continues, not one "
                    + claim.phase());
        }
        Decisions<C> decisions = new Decisions<>();
        claim.inHand = false;
        claim.heldSince = heldSince;
        if (draining) {
            claim.phase(HeldClaim.Phase.RELEASED);
            decisions.handBack(claim);
            return decisions;
        }
        claim.phase(HeldClaim.Phase.WAITING);
        waiting.addFirst(claim);
        dispatch(decisions, now);
        return decisions;
    }

    /**
     * The rows of claims being checked were read: {@code stillHeld} ones start in their slots (handed back if the node
     * began to stop meanwhile); {@code gone} ones, and any handed back or reported gone meanwhile, end without running.
     */
    Decisions<C> checked(List<C> stillHeld, List<C> gone, long now) {
        Decisions<C> decisions = new Decisions<>();
        gone.forEach(claim -> drop(claim, now, decisions));
        for (C claim : stillHeld) {
            if (claim.phase() == HeldClaim.Phase.CHECKING && claim.goneWhileChecking == null && draining) {
                claim.phase(HeldClaim.Phase.RELEASED); // the node stops: it runs only what already runs
                claim.inHand = false;
                decisions.handBack(claim);
            } else if (claim.phase() == HeldClaim.Phase.CHECKING && claim.goneWhileChecking == null) {
                claim.phase(HeldClaim.Phase.RUNNING);
                claim.startedAt = now;
                decisions.start(claim);
            } else {
                drop(claim, now, decisions);
            }
        }
        return decisions;
    }

    /** The rows of waiting claims were read beside a check: those found gone end ({@link HeldClaim#refreshed}). */
    Decisions<C> refreshed(List<C> stillHeld, List<C> gone, List<C> unanswered, long now) {
        Decisions<C> decisions = new Decisions<>();
        stillHeld.forEach(claim -> claim.refreshed(true));
        unanswered.forEach(claim -> claim.refreshing = false);
        gone.stream().filter(claim -> claim.refreshed(false)).forEach(claim -> drop(claim, now, decisions));
        return decisions;
    }

    /**
     * The heartbeat found the claim gone (the row was reaped, or its instance cancelled elsewhere): a step in user
     * code is interrupted (its outcome would be fenced off anyway), a waiting claim ends without running.
     */
    Decisions<C> claimLost(long id, long leaseToken, long now) {
        return lose(id, leaseToken, InterruptReason.LEASE_LOST, now);
    }

    /** The instance was cancelled: its claims here never start another step, and a step in user code is interrupted. */
    Decisions<C> cancelled(long id, long now) {
        return lose(id, -1, InterruptReason.CANCELLED, now);
    }

    /**
     * The node stops: no more picks, no more inline continuations, and the claimed rows that have not started are
     * handed back at once (running steps go on). Returns them in {@link Decisions#handBack()}.
     */
    Decisions<C> drain() {
        draining = true;
        working = false;
        return handBackWaiting(new Decisions<>());
    }

    /**
     * The stopping node's grace period is over: every claim not yet committing is handed back, and steps still in
     * user code are interrupted; whatever they return is discarded. Each keeps its slot until its step ends.
     */
    Decisions<C> releaseUnfinished() {
        Decisions<C> decisions = drain();
        held.forEach(claim -> {
            if (claim.phase() == HeldClaim.Phase.RUNNING) {
                claim.phase(HeldClaim.Phase.RELEASED);
                decisions.handBack(claim);
                decisions.interrupt(claim, InterruptReason.SHUTDOWN);
            } else if (claim.phase() == HeldClaim.Phase.CHECKING) {
                claim.phase(HeldClaim.Phase.RELEASED);
                decisions.handBack(claim);
            }
        });
        return decisions;
    }

    /**
     * Claims were handed back to runnable (or the hand-back failed and their leases will expire): those no thread
     * holds end now; a step still in user code, or a check, ends its own.
     */
    Decisions<C> handedBack(List<C> released, long now) {
        Decisions<C> decisions = new Decisions<>();
        for (C claim : released) {
            if (!claim.inHand) {
                end(claim, false, false, now, decisions);
            }
        }
        return decisions;
    }

    // ---- What the node's views read

    /** How many rows a pick may claim now (see the class comment). */
    int claimable() {
        int claims = held.size() + promised;
        int ahead = concurrency + prefetch();
        int notCommitting = claims - committing;
        return Math.max(0, Math.min(batchSize, Math.min(ahead - notCommitting, ahead + batchSize - claims)));
    }

    /** How many rows may wait for a slot now, from the measured speed of the queue's steps; none before it is known. */
    int prefetch() {
        return prefetch.rows();
    }

    int concurrency() {
        return concurrency;
    }

    /** Rows this node holds for the queue: waiting, being checked, running, committing, or handed back. */
    int claims() {
        return held.size();
    }

    /** Claims promised to local starts whose rows have not arrived. */
    int promised() {
        return promised;
    }

    /** Claims whose outcome is with the committer and ends them. */
    int committing() {
        return committing;
    }

    /** Slots taken: steps in user code (or about to be), and claims being checked. */
    int running() {
        return concurrency - freeSlots;
    }

    /** Claimed rows waiting for a slot. */
    int waiting() {
        return waiting.size();
    }

    boolean hasBacklog() {
        return backlog;
    }

    /** Every claim held, newest first. */
    void forEachHeld(Consumer<? super C> action) {
        held.forEach(action);
    }

    // ---- Inside

    private Decisions<C> handBackWaiting(Decisions<C> decisions) {
        for (C claim : waiting) {
            claim.phase(HeldClaim.Phase.RELEASED);
            decisions.handBack(claim);
        }
        waiting.clear();
        return decisions;
    }

    /** Starts waiting claims, in line, while slots are free; one that waited past the bound is checked first. */
    private void dispatch(Decisions<C> decisions, long now) {
        while (freeSlots > 0 && !waiting.isEmpty()) {
            C claim = waiting.pollFirst();
            freeSlots--;
            claim.holdsSlot = true;
            claim.inHand = true;
            if (now - claim.heldSince > CHECK_AFTER_NANOS) {
                claim.phase(HeldClaim.Phase.CHECKING);
                claim.goneWhileChecking = null;
                decisions.check(claim); // and the rows waiting behind it with it (HeldClaim.refreshFrom)
                waiting.stream().filter(row -> row.refreshFrom(now, CHECK_AFTER_NANOS / 2)).forEach(decisions::refresh);
            } else {
                claim.phase(HeldClaim.Phase.RUNNING);
                claim.startedAt = now;
                decisions.start(claim);
            }
        }
    }

    private void freeSlot(C claim) {
        if (claim.holdsSlot) {
            claim.holdsSlot = false;
            freeSlots++;
        }
    }

    private void end(C claim, boolean leavesWork, boolean timed, long now, Decisions<C> decisions) {
        HeldClaim.Phase before = claim.phase();
        if (before == HeldClaim.Phase.ENDED) {
            return;
        }
        if (before == HeldClaim.Phase.WAITING) {
            waiting.remove(claim);
        }
        if (timed && claim.holdsSlot && before == HeldClaim.Phase.RUNNING) {
            prefetch.timed(now - claim.startedAt); // a step that died: its time counts too
        }
        claim.phase(HeldClaim.Phase.ENDED);
        claim.inHand = false;
        held.remove(claim);
        freeSlot(claim);
        boolean wasCommitting = claim.committing;
        if (wasCommitting) {
            claim.committing = false;
            committing--;
        }
        dispatch(decisions, now);
        roomMayHaveCome(decisions);
        if (!wasCommitting || leavesWork || (backlog && (committing == 0 || claimable() >= batchSize))) {
            wakePoller(decisions);
        }
    }

    /** A claim gone before its step started: it ends without running. */
    private void drop(C claim, long now, Decisions<C> decisions) {
        if (claim.phase() == HeldClaim.Phase.WAITING || claim.phase() == HeldClaim.Phase.CHECKING) {
            decisions.dropped(claim);
        }
        end(claim, false, false, now, decisions); // its slot, if it took one, is given back untimed: it never ran
    }

    private Decisions<C> lose(long id, long leaseToken, InterruptReason reason, long now) {
        Decisions<C> decisions = new Decisions<>();
        held.forEach(claim -> {
            if (claim.id() != id || (leaseToken >= 0 && claim.leaseToken() != leaseToken)) {
                return;
            }
            switch (claim.phase()) {
                case WAITING -> drop(claim, now, decisions);
                case CHECKING -> claim.goneWhileChecking = reason;
                case RUNNING -> decisions.interrupt(claim, reason);
                default -> {
                    // Committing: its fate is the fence's. Handed back or ended: nothing runs.
                }
            }
        });
        return decisions;
    }

    private void roomMayHaveCome(Decisions<C> decisions) {
        if (waitsForRoom && claimable() > 0) {
            waitsForRoom = false;
            wakePoller(decisions);
        }
    }

    private void wakePoller(Decisions<C> decisions) {
        if (wake()) {
            decisions.wakePoller();
        }
    }

    private Decisions.Poll sleep(long nanos) {
        pollerAsleep = true;
        return Decisions.Poll.pause(nanos);
    }


    private void hold(C claim) {
        claim.phase(HeldClaim.Phase.WAITING);
        held.add(claim);
    }
}
