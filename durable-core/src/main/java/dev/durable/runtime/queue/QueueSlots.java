package dev.durable.runtime.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The slots and the claims of one queue on this node, and the only place that counts them (docs/DESIGN.md, "The life
 * of a step"). Two bounds:
 *
 * <ul>
 *   <li>A <b>slot</b> is the right to run user code: at most {@code concurrency} steps of the queue are in user code
 *       at once. A step takes a slot when it starts and gives it back when it hands its outcome to the committer, not
 *       when the outcome commits, so the slot runs the next claimed row while the previous outcome commits.</li>
 *   <li>A <b>claim</b> is a row this node holds for the queue: waiting for a slot, running, or committing its outcome.
 *       The poller claims at most {@link #claimable()} rows: the slots, plus a few rows that wait for one (the
 *       <i>prefetch</i>), so that a slot freed while outcomes commit finds work at once instead of waiting for the
 *       commit and a pick.</li>
 * </ul>
 *
 * <p>The prefetch adapts to how long the queue's steps take: claimed rows wait here, where no other node can run
 * them, for at most about {@link #PREFETCH_HORIZON_NANOS} on average. Fast steps (a row runs in microseconds) get up
 * to a batch of waiting rows; steps of {@code concurrency * 10 ms} or more get none, and then a claim is a slot as
 * before. Until the queue's first steps have been timed there is no prefetch.
 *
 * <p>Claimed rows wait in arrival order, an inline chain's next step ahead of them; whoever frees a slot or adds a
 * row starts what can start ({@link #dispatch()}), through the {@code starter}. The poller reads how many rows it may
 * claim and how many claims are committing (they are about to end together, so a pick may wait a moment for them,
 * see {@link QueuePoller}); a poller asleep for want of room is woken by the first claim that makes some, and while the
 * queue has a backlog an ended claim wakes it when the last committing claim is back or a whole batch is claimable
 * ({@link #claimEnded}).
 */
public final class QueueSlots {

    /** How long, on average, a prefetched row may wait here for a slot. */
    static final long PREFETCH_HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The weight of the latest step in the moving average of step durations. */
    private static final double DURATION_WEIGHT = 0.05;

    private final int concurrency;
    private final int batchSize;
    private final Runnable wakePoller;
    private final Consumer<RunningStep> starter;
    /** Claimed rows waiting for a slot, and the free slots: changed together, under this lock. */
    private final Object lock = new Object();
    private final ArrayDeque<RunningStep> waiting = new ArrayDeque<>();
    private int free;
    /** Claims promised to rows a local start is inserting (docs/DESIGN.md, "Local starts"). */
    private int reserved;
    /** The poller is picking, for as many rows as were claimable when it began: no promise until it is done. */
    private boolean picking;
    private final AtomicInteger claims = new AtomicInteger();
    private final AtomicInteger committing = new AtomicInteger();
    /** Moving average of the queue's step durations in user code, in nanoseconds; negative until the first. */
    private volatile double meanStepNanos = -1;
    private final AtomicLong timedSteps = new AtomicLong();
    private volatile boolean backlog;
    /** The poller sleeps because nothing is claimable: the first claim that makes room must wake it. */
    private volatile boolean pollerWantsRoom;

    /**
     * @param starter starts a step that has just taken a slot ({@link RunningStep#begin}); must be quick
     */
    QueueSlots(int concurrency, int batchSize, Runnable wakePoller, Consumer<RunningStep> starter) {
        this.concurrency = concurrency;
        this.batchSize = batchSize;
        this.wakePoller = wakePoller;
        this.starter = starter;
        this.free = concurrency;
    }

    int concurrency() {
        return concurrency;
    }

    /** How many rows may wait here for a slot now, from the measured speed of the queue's steps. */
    int prefetch() {
        double mean = meanStepNanos;
        if (mean < 0) {
            return 0;
        }
        double rows = concurrency * PREFETCH_HORIZON_NANOS / Math.max(mean, 1.0);
        return (int) Math.min(batchSize, rows);
    }

    /**
     * How many rows a pick may claim now: up to a batch, so that the rows waiting or running stay within the slots and
     * the prefetch. Claims whose outcome is committing do not count there (their user code is over), so the next pick
     * overlaps the commit of the last batch; they count in a second bound, of one batch more, so that a slow commit
     * cannot let claims pile up.
     */
    int claimable() {
        int held = claims.get();
        int ahead = concurrency + prefetch();
        int notCommitting = held - committing.get();
        return Math.max(0, Math.min(batchSize, Math.min(ahead - notCommitting, ahead + batchSize - held)));
    }

    /** Rows this node holds for the queue: waiting, running or committing. */
    public int claims() {
        return claims.get();
    }

    /** Claims whose outcome is with the committer. */
    public int committing() {
        return committing.get();
    }

    /** Steps in user code (or about to be). */
    public int running() {
        synchronized (lock) {
            return concurrency - free;
        }
    }

    /** Claimed rows waiting for a slot. */
    int waiting() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    /** Whether the queue's last pick found as many rows as it asked for: more is likely waiting. */
    boolean hasBacklog() {
        return backlog;
    }

    /** Records whether the last pick found as many rows as it asked for. */
    void backlog(boolean backlog) {
        this.backlog = backlog;
    }

    /** A row was just claimed for the queue by a pick: it holds a claim and starts when a slot is free. */
    void claimed(RunningStep step) {
        claims.incrementAndGet();
        synchronized (lock) {
            waiting.addLast(step);
        }
        dispatch();
    }

    /**
     * Promises a claim to a row a local start is about to insert, if the row would start at once: a slot is free that
     * no waiting row nor earlier promise will take, and a pick could claim a row now. The claim counts from now on;
     * the row arrives through {@link #claimedAtStart} or the promise is taken back with {@link #unreserve()}.
     */
    boolean reserve() {
        synchronized (lock) {
            if (picking || !waiting.isEmpty() || free - reserved <= 0 || claimable() <= 0) {
                return false;
            }
            reserved++;
            claims.incrementAndGet();
            return true;
        }
    }

    /**
     * The poller begins a pick: how many rows it may claim. Until {@link #endPick()} no local start is promised a
     * claim, so the rows the pick claims and the promises never add up past the bound it was given.
     */
    int beginPick() {
        synchronized (lock) {
            picking = true;
            return claimable();
        }
    }

    /** The pick's rows are claimed here (or it claimed none). */
    void endPick() {
        synchronized (lock) {
            picking = false;
        }
    }

    /** A row a local start claimed for the promise of {@link #reserve()}: it starts when a slot is free. */
    void claimedAtStart(RunningStep step) {
        synchronized (lock) {
            reserved--;
            waiting.addLast(step);
        }
        dispatch();
    }

    /** Takes back a promise of {@link #reserve()}: the row was not claimed (or not committed). */
    void unreserve() {
        synchronized (lock) {
            reserved--;
        }
        claims.decrementAndGet();
        roomMayHaveCome();
    }

    /** The next step of an inline chain, on a claim already held: it starts before the rows waiting. */
    void continued(RunningStep step) {
        synchronized (lock) {
            waiting.addFirst(step);
        }
        dispatch();
    }

    /** Hands every row still waiting back to the caller, released ({@link RunningStep#releaseWaiting()}): the node stops. */
    public List<RunningStep> releaseWaiting() {
        List<RunningStep> released = new ArrayList<>();
        synchronized (lock) {
            for (RunningStep step : waiting) {
                if (step.releaseWaiting()) {
                    released.add(step);
                }
            }
            waiting.clear();
        }
        return released;
    }

    /** Starts waiting rows while slots are free. */
    private void dispatch() {
        while (true) {
            RunningStep next;
            Slot slot;
            synchronized (lock) {
                if (free == 0 || waiting.isEmpty()) {
                    return;
                }
                next = waiting.pollFirst();
                free--;
                slot = new Slot();
            }
            if (next.begin(slot)) {
                starter.accept(next);
            } else {
                slot.release(-1); // released at shutdown meanwhile: its releaser ends it
            }
        }
    }

    /** A claim's outcome went to the committer. */
    void commitBegan() {
        committing.incrementAndGet();
        roomMayHaveCome();
    }

    /**
     * The poller found nothing claimable and sleeps until a claim makes room. It says so before it sleeps and then
     * looks again, and whoever makes room changes the counts before it reads this flag: one of the two sees the other,
     * so the wake-up is never lost, however many rows become claimable at once (the prefetch may grow meanwhile).
     */
    void pollerWantsRoom() {
        pollerWantsRoom = true;
        roomMayHaveCome();
    }

    private void roomMayHaveCome() {
        if (pollerWantsRoom && claimable() > 0) {
            pollerWantsRoom = false;
            wakePoller.run();
        }
    }

    /**
     * A claim ended: its row is no longer this node's. Wakes the poller when a pick is worth making: when it sleeps
     * for want of room ({@link #pollerWantsRoom()}), when the claim ended without a commit (its row may be runnable
     * again), and while the queue has a backlog, when the last committing claim is back or a whole batch is
     * claimable. Without a backlog an ended claim says nothing of work to pick: rows its commit made runnable wake the
     * poller through {@link #workMayBeDue()}, and new work through a start, a signal or the probe.
     */
    void claimEnded(boolean wasCommitting) {
        claims.decrementAndGet();
        int stillCommitting = wasCommitting ? committing.decrementAndGet() : committing.get();
        roomMayHaveCome();
        if (!wasCommitting || (backlog && (stillCommitting == 0 || claimable() >= batchSize))) {
            wakePoller.run();
        }
    }

    /**
     * A committed outcome may have left work for the queue to pick now or at a time to look up: a {@code next} or
     * {@code retry} of its row (at once, or at a due time the poller waits for), a park that found its signal already
     * there, or a partition key free again for the key's next row.
     */
    void workMayBeDue() {
        wakePoller.run();
    }

    /** Adds a step's time in user code to the moving average the prefetch follows. */
    void recordDuration(long nanos) {
        // The mean of the first steps, then a moving average: a slow first step (a cold JVM) soon counts for little.
        long n = timedSteps.incrementAndGet();
        double weight = Math.max(DURATION_WEIGHT, 1.0 / n);
        double mean = meanStepNanos;
        meanStepNanos = mean < 0 ? nanos : mean + weight * (nanos - mean);
    }

    /** One slot, taken by a step when it starts and given back once, when its user code is over. */
    final class Slot {

        private final AtomicBoolean released = new AtomicBoolean();

        private Slot() {
        }

        /**
         * User code is over (the outcome went to the committer, or the step ended without one): the slot is free and
         * starts the next waiting row. Only the first call counts.
         *
         * @param ranNanos how long the step's user code ran, for the prefetch; negative if it never ran
         */
        void release(long ranNanos) {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            if (ranNanos >= 0) {
                recordDuration(ranNanos);
            }
            synchronized (lock) {
                free++;
            }
            dispatch();
        }

        boolean isReleased() {
            return released.get();
        }
    }
}
