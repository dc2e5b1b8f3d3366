package dev.durable.runtime.queue;

import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.StepRunner;
import dev.durable.runtime.step.Transition;
import org.jspecify.annotations.Nullable;

/**
 * One claim this node holds and the step it runs on it: the claimed row, the owner of its queue, and, while a step
 * thread runs its user code, that thread. Where the claim is in its life ({@link HeldClaim.Phase}) is its owner's to
 * say; this class binds interrupts to the thread (docs/DESIGN.md, "Shutdown, degraded mode and zombies") and carries
 * the outcome to the committer ({@link Committer.Submission}).
 */
public final class RunningStep extends HeldClaim implements StepRunner.Running, Committer.Submission {

    private final QueueOwner owner;
    private final StepExecutor executor;
    private volatile ClaimedStep claimed;
    private volatile int inlineSteps;
    /** What the current step decided and the write handed to the committer; set before the hand-over. */
    private StepRunner.@Nullable Ending ending;
    private @Nullable Transition write;

    // The thread is attached and detached under this object's lock, and interrupt() takes it too: an interrupt
    // reaches the thread only while it runs this step's user code, never a step it runs later (a pooled platform
    // thread), and one that came before the thread was attached is delivered when it is.
    private @Nullable Thread thread;
    private boolean detached;
    private volatile @Nullable InterruptReason interruptReason;
    private volatile boolean zombie;

    /** A row just claimed by {@code owner}'s pick: it holds one of the queue's claims and waits for a slot. */
    RunningStep(ClaimedStep claimed, QueueOwner owner, StepExecutor executor) {
        super(claimed.id(), claimed.leaseToken(), claimed.partitionKey() != null);
        this.claimed = claimed;
        this.owner = owner;
        this.executor = executor;
    }

    @Override
    public ClaimedStep claimed() {
        return claimed;
    }

    @Override
    public boolean timedOut() {
        return interruptReason == InterruptReason.TIMEOUT;
    }

    public Claim claim() {
        return claimed.claim();
    }

    QueueOwner owner() {
        return owner;
    }

    /** When the current step took its slot (System.nanoTime). */
    long startedNanos() {
        return startedAt;
    }

    /** How many steps of an inline chain ran on this claim before the current one. */
    int inlineSteps() {
        return inlineSteps;
    }

    /** The step's thread starts running user code; an interrupt that already came is passed on now. */
    synchronized void attach(Thread thread) {
        this.thread = thread;
        this.detached = false;
        if (interruptReason != null) {
            thread.interrupt();
        }
    }

    /** The step's user code is over (or never began): no interrupt reaches its thread after this. */
    synchronized void detach() {
        thread = null;
        detached = true;
    }

    /**
     * Interrupts the step's thread while it runs user code, or marks a step about to start so that its thread is
     * interrupted when it attaches; the first reason sticks.
     *
     * @return whether the step was interrupted (or marked) now
     */
    synchronized boolean interrupt(InterruptReason reason) {
        if (detached || interruptReason != null) {
            return false;
        }
        interruptReason = reason;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
        return true;
    }

    @Nullable InterruptReason interruptReason() {
        return interruptReason;
    }

    /** Whether the claim is known to be gone (its instance cancelled, its lease lost): its step must not start. */
    boolean gone() {
        InterruptReason reason = interruptReason;
        return reason == InterruptReason.CANCELLED || reason == InterruptReason.LEASE_LOST;
    }

    /**
     * The next step of an inline chain, on the same claim (same id and lease token): the step runs afresh, on a thread
     * of its own, with no interrupt pending.
     */
    synchronized void continueWith(ClaimedStep next) {
        if (next.id() != id() || next.leaseToken() != leaseToken()) {
            throw new IllegalStateException("an inline continuation must keep the claim " + claim() + ", got "
                    + next.claim());
        }
        claimed = next;
        inlineSteps++;
        interruptReason = null;
        thread = null;
        detached = false;
    }

    /** Hands the step's outcome to the committer's queue: {@code write} is what gets written. */
    void committing(StepRunner.Ending ending, Transition write) {
        this.ending = ending;
        this.write = write;
    }

    /** What the current step decided (set when its outcome was handed over). */
    StepRunner.Ending ending() {
        StepRunner.Ending current = ending;
        if (current == null) {
            throw new IllegalStateException(this + " has handed no outcome over");
        }
        return current;
    }

    @Override
    public Transition write() {
        Transition current = write;
        if (current == null) {
            throw new IllegalStateException(this + " has handed no outcome over");
        }
        return current;
    }

    @Override
    public void written(Committer.Result result) {
        executor.written(this, result);
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
