package dev.durable.runtime;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The {@code concurrency} slots of one queue on this node, and the only place that counts them. The poller takes a
 * slot for every row it claims ({@link #take()}); the step carries its {@link Slot} through its life and whoever
 * ends the step's work on its claim releases it, once ({@link Slot#release()} is idempotent). The counters change
 * only in this file.
 *
 * <p>A slot is in one of three states: running (user code, or about to), committing (its outcome is with the
 * committer) or free. The poller reads two figures: how many are free (a pick claims at most that many) and how
 * many are committing (they are about to free together, so a pick may wait a moment for them, see
 * {@link QueuePoller}). A released slot wakes the poller when it is the first free one (the poller may be asleep
 * with every slot taken; woken, it waits up to the batch window for the slots still committing), when the last
 * committing slot is back, or when a whole batch is free; the releases in between need no wake, so a flush that
 * ends a hundred steps wakes the poller a few times, not a hundred.
 *
 * <p>While the queue has a backlog (its last pick, or its last refill, found as many rows as it asked for), a step
 * that ends asks the committer to claim the queue's next row in the commit of its outcome ({@link #refill()}): its
 * slot then goes on with that row without ever being free, and the poller is not involved.
 */
final class QueueSlots {

    private final int concurrency;
    private final int batchSize;
    private final Runnable wakePoller;
    private final @Nullable Refill refill;
    private final AtomicInteger free;
    private final AtomicInteger committing = new AtomicInteger();
    private volatile boolean backlog;
    private volatile boolean paused;

    QueueSlots(int concurrency, int batchSize, Runnable wakePoller) {
        this(concurrency, batchSize, wakePoller, null);
    }

    /** @param refill what a step's commit needs to claim the queue's next row for its slot; null: never refill */
    QueueSlots(int concurrency, int batchSize, Runnable wakePoller, @Nullable Refill refill) {
        this.concurrency = concurrency;
        this.batchSize = batchSize;
        this.wakePoller = wakePoller;
        this.refill = refill;
        this.free = new AtomicInteger(concurrency);
    }

    /**
     * What a step ending now asks its commit to claim for its slot: the queue's refill while it has a backlog and is
     * not paused on this node; null otherwise (the slot is released and the poller picks).
     */
    @Nullable Refill refill() {
        return backlog && !paused ? refill : null;
    }

    /** Whether the last pick or refill found as many rows as it asked for: more are likely waiting. */
    void backlog(boolean backlog) {
        this.backlog = backlog;
    }

    /** The queue is paused on this node (or resumed): no refill while it is. */
    void paused(boolean paused) {
        this.paused = paused;
    }

    int concurrency() {
        return concurrency;
    }

    int free() {
        return free.get();
    }

    int committing() {
        return committing.get();
    }

    /** Slots whose steps are in user code (or about to be): taken and not committing. */
    int running() {
        return concurrency - free.get() - committing.get();
    }

    /** Takes a free slot for a claimed row; the poller never claims more rows than {@link #free()}. */
    Slot take() {
        if (free.getAndDecrement() <= 0) {
            free.incrementAndGet();
            throw new IllegalStateException("no free slot: the poller claimed more rows than it had slots");
        }
        return new Slot();
    }

    /** One taken slot, carried by the step that runs in it. */
    final class Slot {

        private final AtomicBoolean released = new AtomicBoolean();
        private boolean isCommitting;

        private Slot() {
        }

        /** The step handed its outcome to the committer: the slot is about to free. */
        synchronized void committing() {
            if (!isCommitting && !released.get()) {
                isCommitting = true;
                committing.incrementAndGet();
            }
        }

        /**
         * The outcome committed and the slot runs again: the step goes on inline on the same claim, or the slot passes
         * to the row its commit claimed (a refill).
         */
        synchronized void continued() {
            if (isCommitting && !released.get()) {
                isCommitting = false;
                committing.decrementAndGet();
            }
        }

        /** The step's work on its claim is over: the slot is free again. Only the first call counts. */
        void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            boolean wasCommitting;
            synchronized (this) {
                wasCommitting = isCommitting;
                isCommitting = false;
            }
            int freeNow = free.incrementAndGet();
            int stillCommitting = wasCommitting ? committing.decrementAndGet() : committing.get();
            if (freeNow == 1 || stillCommitting == 0 || freeNow >= batchSize || !wasCommitting) {
                wakePoller.run();
            }
        }

        boolean isReleased() {
            return released.get();
        }

        /** See {@link QueueSlots#refill()}. */
        @Nullable Refill refill() {
            return QueueSlots.this.refill();
        }

        /** See {@link QueueSlots#backlog(boolean)}. */
        void backlog(boolean backlog) {
            QueueSlots.this.backlog(backlog);
        }
    }
}
