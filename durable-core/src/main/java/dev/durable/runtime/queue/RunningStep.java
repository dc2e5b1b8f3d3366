package dev.durable.runtime.queue;

import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.StepRunner;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * One claim this node holds and the step it runs on it: the claimed row, the queue whose claim it counts against,
 * the slot it runs in while its user code runs, its thread, and where it is in its short life:
 * {@code WAITING -> RUNNING -> COMMITTING -> ENDED}; {@code COMMITTING -> WAITING} for the next step of an inline
 * chain; {@code WAITING|RUNNING -> RELEASED -> ENDED} when a stopping node hands the row back.
 *
 * <p>It holds two things of its queue ({@link QueueSlots}), each released once: its claim, from the pick until it
 * ends ({@link #end()}), and a slot, only while its user code runs: the slot is taken when the step starts and given
 * back the moment the step hands its outcome to the committer ({@link #beginCommitting()}), so the slot can run the
 * next claimed row while this outcome commits (docs/DESIGN.md, "The life of a step").
 */
public final class RunningStep implements StepRunner.Running {

    public enum Phase {
        /** Claimed, waiting for a slot of its queue. */
        WAITING,
        /** User code runs (or is about to), in a slot. */
        RUNNING,
        /** The outcome is with the committer; the step can no longer be released or interrupted. */
        COMMITTING,
        /** The node released the row at shutdown; whatever the step returns is discarded. */
        RELEASED,
        /** Done with. */
        ENDED
    }

    /** Why a step's thread was interrupted. */
    public enum InterruptReason { TIMEOUT, LEASE_LOST, CANCELLED, SHUTDOWN }

    private volatile ClaimedStep claimed;
    private final QueueSlots queue;
    private volatile long startedNanos = System.nanoTime();
    private volatile int inlineSteps;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.WAITING);
    private final AtomicReference<@Nullable InterruptReason> interruptReason = new AtomicReference<>();
    private volatile QueueSlots.@Nullable Slot slot;
    private volatile @Nullable Thread thread;
    private volatile boolean zombie;
    /** Whether the outcome being committed ends the claim (not an inline chain's): set per commit. */
    private volatile boolean commitEndsClaim;

    /** A row just claimed on {@code queue}: it holds one of the queue's claims and waits for a slot. */
    RunningStep(ClaimedStep claimed, QueueSlots queue) {
        this.claimed = claimed;
        this.queue = queue;
    }

    @Override
    public ClaimedStep claimed() {
        return claimed;
    }

    @Override
    public boolean timedOut() {
        return interruptReason.get() == InterruptReason.TIMEOUT;
    }

    public Claim claim() {
        return claimed.claim();
    }

    public long id() {
        return claimed.id();
    }

    QueueSlots queue() {
        return queue;
    }

    /** When the current step's user code started (its slot was taken). */
    long startedNanos() {
        return startedNanos;
    }

    /** How many steps of an inline chain ran on this claim before the current one. */
    int inlineSteps() {
        return inlineSteps;
    }

    public Phase phase() {
        return phase.get();
    }

    /**
     * WAITING -> RUNNING in {@code slot}: the step may start. False if it was released or ended meanwhile (at
     * shutdown); the caller then gives the slot back.
     */
    synchronized boolean begin(QueueSlots.Slot slot) {
        if (!phase.compareAndSet(Phase.WAITING, Phase.RUNNING)) {
            return false;
        }
        this.slot = slot;
        startedNanos = System.nanoTime();
        return true;
    }

    // The thread is attached and detached under this object's lock, and interrupt() takes it too: an interrupt
    // reaches the thread only while it runs this step, never a step it runs later (a pooled platform thread), and
    // one that came before the thread was attached is delivered when it is.

    /** The step's thread starts running user code; an interrupt that already came is passed on now. */
    synchronized void attach(Thread thread) {
        this.thread = thread;
        if (interruptReason.get() != null && (phase.get() == Phase.RUNNING || phase.get() == Phase.RELEASED)) {
            thread.interrupt();
        }
    }

    /**
     * RUNNING -> COMMITTING, detaching the thread and giving the slot back (user code is over); false if the row was
     * released meanwhile (its outcome must then be discarded). After this no interrupt reaches the thread: it may clear
     * one that came before.
     *
     * @param endsClaim whether the claim ends with this commit, so that it counts as committing at its queue (room for
     *                  the next pick); false when it goes on, on an inline chain's next step
     */
    boolean beginCommitting(boolean endsClaim) {
        QueueSlots.Slot freed;
        synchronized (this) {
            if (!phase.compareAndSet(Phase.RUNNING, Phase.COMMITTING)) {
                return false;
            }
            thread = null;
            freed = slot;
            slot = null;
            commitEndsClaim = endsClaim;
        }
        if (freed != null) {
            freed.release(System.nanoTime() - startedNanos);
        }
        // After the slot is free: a pick this makes room for never claims a row that would wait for this slot.
        if (endsClaim) {
            queue.commitBegan();
        }
        return true;
    }

    /** RUNNING -> RELEASED; false if the step is not in user code (waiting, writing its outcome, or ended). */
    public synchronized boolean release() {
        return phase.compareAndSet(Phase.RUNNING, Phase.RELEASED);
    }

    /**
     * WAITING -> RELEASED: a claimed row that never started is handed back; no thread will end it, so the caller does
     * once the row is released. False if it is not waiting.
     */
    public synchronized boolean releaseWaiting() {
        return phase.compareAndSet(Phase.WAITING, Phase.RELEASED);
    }

    /**
     * Over: no interrupt reaches the thread after this, its slot (if it still holds one: a step that never committed)
     * and its claim are given back. Idempotent.
     */
    void end() {
        Phase before;
        QueueSlots.Slot freed;
        synchronized (this) {
            before = phase.getAndSet(Phase.ENDED);
            thread = null;
            freed = slot;
            slot = null;
        }
        if (before == Phase.ENDED) {
            return;
        }
        if (freed != null) {
            freed.release(System.nanoTime() - startedNanos);
        }
        queue.claimEnded(before == Phase.COMMITTING && commitEndsClaim);
    }

    /**
     * COMMITTING -> WAITING with the next step of an inline chain, on the same claim (same id and lease token): it
     * waits for a slot like any claimed row, ahead of them.
     */
    synchronized void continueWith(ClaimedStep next) {
        if (next.id() != claimed.id() || next.leaseToken() != claimed.leaseToken()) {
            throw new IllegalStateException("an inline continuation must keep the claim " + claim() + ", got "
                    + next.claim());
        }
        if (!phase.compareAndSet(Phase.COMMITTING, Phase.WAITING)) {
            throw new IllegalStateException("only a committed step continues inline, not one " + phase.get());
        }
        claimed = next;
        inlineSteps++;
        interruptReason.set(null);
        thread = null; // the next step runs on a thread of its own, attached when it starts
    }

    /**
     * Interrupts the step's thread while it runs user code, or marks a waiting step so that it never starts; the
     * first reason sticks.
     *
     * @return whether the step was interrupted (or marked) now
     */
    synchronized boolean interrupt(InterruptReason reason) {
        Phase now = phase.get();
        if (now != Phase.RUNNING && now != Phase.RELEASED && now != Phase.WAITING) {
            return false;
        }
        if (!interruptReason.compareAndSet(null, reason)) {
            return false;
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
        return true;
    }

    @Nullable InterruptReason interruptReason() {
        return interruptReason.get();
    }

    boolean isZombie() {
        return zombie;
    }

    void markZombie() {
        zombie = true;
    }

    @Override
    public String toString() {
        return "step " + claimed.step() + " of " + claimed.machine() + " v" + claimed.version() + " (instance "
                + claimed.id() + ")";
    }
}
