package dev.durable.runtime;

import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * One step this node is running: its claim, its queue slot, its thread, and where it is in its short life
 * ({@code RUNNING -> COMMITTING -> ENDED}, {@code COMMITTING -> RUNNING} for the next step of an inline chain, or
 * {@code RUNNING -> RELEASED -> ENDED} when a stopping node hands the row back). Its phase moves its slot along:
 * committing, running again, and released when the step ends ({@link #end()}, whoever calls it; only the first
 * call counts).
 */
final class RunningStep {

    enum Phase {
        /** User code runs (or is about to). */
        RUNNING,
        /** The outcome is with the committer; the step can no longer be released or interrupted. */
        COMMITTING,
        /** The node released the row at shutdown; whatever the step returns is discarded. */
        RELEASED,
        /** Done with. */
        ENDED
    }

    /** Why a step's thread was interrupted. */
    enum InterruptReason { TIMEOUT, LEASE_LOST, CANCELLED, SHUTDOWN }

    private volatile ClaimedStep claimed;
    private final QueueSlots.Slot slot;
    private volatile long startedNanos = System.nanoTime();
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
    private final AtomicReference<@Nullable InterruptReason> interruptReason = new AtomicReference<>();
    private volatile @Nullable Thread thread;
    private volatile boolean zombie;

    RunningStep(ClaimedStep claimed, QueueSlots.Slot slot) {
        this.claimed = claimed;
        this.slot = slot;
    }

    ClaimedStep claimed() {
        return claimed;
    }

    Claim claim() {
        return claimed.claim();
    }

    long id() {
        return claimed.id();
    }

    long startedNanos() {
        return startedNanos;
    }

    QueueSlots.Slot slot() {
        return slot;
    }

    Phase phase() {
        return phase.get();
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
     * RUNNING -> COMMITTING, detaching the thread; false if the row was released meanwhile (its outcome must then be
     * discarded). After this no interrupt reaches the thread: it may clear one that came before.
     */
    synchronized boolean beginCommitting() {
        boolean committing = phase.compareAndSet(Phase.RUNNING, Phase.COMMITTING);
        if (committing) {
            thread = null;
            slot.committing();
        }
        return committing;
    }

    /** RUNNING -> RELEASED; false if the step already writes its outcome. */
    synchronized boolean release() {
        return phase.compareAndSet(Phase.RUNNING, Phase.RELEASED);
    }

    /**
     * Over, but its slot goes on with another claim (the row its commit claimed): the same as {@link #end()} without
     * freeing the slot, which the caller passes to the step of that row.
     */
    synchronized QueueSlots.Slot handOver() {
        phase.set(Phase.ENDED);
        thread = null;
        return slot;
    }

    /** Over: no interrupt reaches the thread after this, and the slot is free again. Idempotent. */
    void end() {
        synchronized (this) {
            phase.set(Phase.ENDED);
            thread = null;
        }
        slot.release();
    }

    /**
     * COMMITTING -> RUNNING with the next step of an inline chain, on the same claim (same id and lease token) and
     * in the same slot.
     */
    synchronized void continueWith(ClaimedStep next) {
        if (next.id() != claimed.id() || next.leaseToken() != claimed.leaseToken()) {
            throw new IllegalStateException("an inline continuation must keep the claim " + claim() + ", got "
                    + next.claim());
        }
        claimed = next;
        startedNanos = System.nanoTime();
        interruptReason.set(null);
        thread = null; // the next step runs on a thread of its own, attached when it starts
        phase.set(Phase.RUNNING);
        slot.continued();
    }

    /**
     * Interrupts the step's thread while it runs user code; the first reason sticks.
     *
     * @return whether the thread was interrupted now
     */
    synchronized boolean interrupt(InterruptReason reason) {
        if (phase.get() != Phase.RUNNING && phase.get() != Phase.RELEASED) {
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
