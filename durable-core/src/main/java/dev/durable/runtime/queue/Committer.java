package dev.durable.runtime.queue;

import dev.durable.Outcome;
import dev.durable.runtime.StepEvent;
import dev.durable.runtime.jdbc.DatabaseErrors;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.StepRunner;
import dev.durable.runtime.step.Transition;
import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.support.NodeLifecycle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the transitions of finished steps: group commit on one thread. A step hands its transition over and its
 * thread is done; the committer takes everything that has piled up and writes it as one batch (a few fenced
 * statements, one transaction), then tells each submission what became of it ({@link Submission#written}). It
 * knows nothing of queues, slots or pollers: what a result means for its claim is the step's business and its
 * queue's owner's (docs/DESIGN.md, "The life of a step").
 *
 * <p>When no other step is running, a lone transition is written at once: an idle node pays no latency for
 * batching. While other steps still run user code, the committer holds the first one back for at most
 * {@code batchWindow} so theirs join the same commit (steps picked together tend to finish together), but no
 * longer than it takes to gather a pick's worth; and whatever piles up while a flush runs goes into the next one.
 *
 * <p>While the database cannot be reached a batch is retried with backoff for {@code outcomeRetryTimeout}; a
 * retry after an ambiguous failure recognises writes the failed attempt did commit. Past the timeout the steps are
 * abandoned and their rows left to the reaper: an outcome is written whole or not at all.
 */
public final class Committer {

    public static final String NAME = "durable-committer";

    private static final Logger log = LoggerFactory.getLogger(Committer.class);
    private static final int MAX_BATCH = 500;
    private static final Duration IDLE = Duration.ofSeconds(1);
    /** The first pause before writing a batch again: shorter than the loops', a step result is waiting. */
    private static final Duration FIRST_RETRY = Duration.ofMillis(50);

    /** A transition handed over by a step: what to write, and who hears what became of it. */
    public interface Submission {

        /** The transition to write. */
        Transition write();

        /**
         * On the committer's thread: what became of the transition, once it is committed, fenced off, abandoned or
         * discarded. Must be quick.
         */
        void written(Result result);
    }

    /** What the committer asks of the node it runs on, and tells it. */
    public interface Node {

        /** How many of the node's steps run user code now: their transitions will arrive soon. */
        int stepsInUserCode();

        /**
         * A committed batch gave {@code queue} work to pick at once (children it started, parents it woke), so that
         * this node's poller of it need not wait for its next poll.
         */
        void newWork(String queue);
    }

    /**
     * What the committer needs to know of the engine's settings.
     *
     * @param retryTimeout how long a batch the database cannot take is retried before it is abandoned
     * @param lease        the lease an inline continuation's commit renews
     * @param maxBackoff   the longest pause between tries
     * @param batchWindow  how long a lone transition may wait for others while steps still run user code
     * @param gatherTarget enough outcomes to free a pick's worth of slots (the largest batch of the node's queues):
     *                     gathering stops there, so the next pick can overlap
     */
    public record Settings(Duration retryTimeout, Duration lease, Duration maxBackoff, Duration batchWindow,
            int gatherTarget) {
    }

    /**
     * What became of a transition.
     *
     * @param continued for a committed {@code next} that kept its claim, the claimed row of the next step to run now
     * @param sentNanos when (System.nanoTime) the statement that committed it was sent: the claim of a continuation is
     *                  known to hold its row since then
     */
    public record Result(StepEvent.Fate fate, @Nullable ClaimedStep continued, long sentNanos) {

        static final Result DISCARDED = new Result(StepEvent.Fate.DISCARDED, null, 0);

        Result(StepEvent.Fate fate) {
            this(fate, null, 0);
        }
    }

    private final TransitionRepository transitions;
    private final NodeLifecycle lifecycle;
    private final EngineEvents events;
    private final Duration retryTimeout;
    private final Duration lease;
    private final Duration maxBackoff;
    private final Node node;
    private final long batchWindowNanos;
    /** Enough outcomes to free a pick's worth of slots: gathering stops there, so the next pick can overlap. */
    private final int gatherTarget;
    private final LinkedBlockingQueue<Submission> handedOver = new LinkedBlockingQueue<>();
    private final ReentrantLock arrivalLock = new ReentrantLock();
    private final Condition arrival = arrivalLock.newCondition();
    private final BackgroundLoop loop;
    private volatile boolean stopped;

    public Committer(TransitionRepository transitions, Node node, NodeLifecycle lifecycle, EngineEvents events,
            Settings settings) {
        this.transitions = transitions;
        this.node = node;
        this.lifecycle = lifecycle;
        this.events = events;
        this.retryTimeout = settings.retryTimeout();
        this.lease = settings.lease();
        this.maxBackoff = settings.maxBackoff();
        this.batchWindowNanos = settings.batchWindow().toNanos();
        this.gatherTarget = Math.max(1, Math.min(MAX_BATCH, settings.gatherTarget()));
        this.loop = new BackgroundLoop(NAME, this::flushPending, lifecycle, events, maxBackoff);
    }

    public void start() {
        stopped = false;
        loop.start();
    }

    /** Writes everything still pending, then stops. */
    public void stop(Duration timeout) {
        stopped = true;
        loop.stop(timeout);
        List<Submission> rest = new ArrayList<>();
        handedOver.drainTo(rest);
        if (!rest.isEmpty()) {
            flush(rest);
        }
    }

    /**
     * Hands over one transition; the submission hears on the committer's thread what became of it. The step's thread
     * does not wait: its work is done. After {@link #stop} (a step that outlived its node's shutdown) the transition
     * is discarded, the submission hears so at once and the row is left to the reaper.
     */
    void submit(Submission submission) {
        handedOver.add(submission);
        if (stopped && handedOver.remove(submission)) {
            submission.written(Result.DISCARDED);
            return;
        }
        loop.wake();
        // The committer gathering a batch only needs to look again once the batch may be complete.
        if (node.stepsInUserCode() == 0 || handedOver.size() >= gatherTarget) {
            signalArrival();
        }
    }

    private Duration flushPending() {
        if (handedOver.isEmpty()) {
            return IDLE;
        }
        gatherWhileOthersRun();
        List<Submission> batch = new ArrayList<>();
        handedOver.drainTo(batch, MAX_BATCH);
        if (!batch.isEmpty()) {
            flush(batch);
        }
        return handedOver.isEmpty() ? IDLE : Duration.ZERO;
    }

    /**
     * Logs the outcomes the fence refused: those of instances cancelled meanwhile at DEBUG, the expected end of a
     * cancel (whose caller logged it once at INFO); the others, whose lease was lost, at WARN.
     */
    private void logFenced(List<Transition> writes, Set<Long> applied) {
        List<Transition> fenced = writes.stream().filter(write -> !applied.contains(write.id())).toList();
        if (fenced.isEmpty()) {
            return;
        }
        Set<Long> cancelled;
        try {
            cancelled = transitions.cancelledAmong(fenced.stream().map(Transition::id).toList());
        } catch (RuntimeException e) {
            cancelled = Set.of(); // not known: each is logged as a lost lease
        }
        for (Transition write : fenced) {
            if (cancelled.contains(write.id())) {
                log.debug("Outcome {} of instance {} discarded: the instance was cancelled while its step ran",
                        write.kind(), write.id());
            } else {
                log.warn("Outcome {} of instance {} discarded: the claim's lease was lost (the row was reaped and may "
                        + "run elsewhere)", write.kind(), write.id());
            }
        }
    }

    private void flush(List<Submission> batch) {
        // The repository reports applied writes by instance id, so two claims of one instance (a reaped step that
        // finished late and its re-run) must not share a statement: the stale one would be reported as applied.
        List<Submission> round = new ArrayList<>();
        List<Submission> later = new ArrayList<>();
        Set<Long> ids = new HashSet<>();
        for (Submission pending : batch) {
            (ids.add(pending.write().id()) ? round : later).add(pending);
        }
        flushRound(round);
        if (!later.isEmpty()) {
            flush(later);
        }
    }

    private void flushRound(List<Submission> batch) {
        List<Transition> writes = batch.stream().map(Submission::write).toList();
        long deadline = System.nanoTime() + retryTimeout.toNanos();
        boolean ambiguous = false;
        for (int failures = 0; ; ) {
            try {
                long sent = System.nanoTime();
                TransitionRepository.Applied applied = transitions.apply(writes, lease, ambiguous);
                events.outcomesFlushed();
                lifecycle.databaseOk(NAME);
                List<Result> results = new ArrayList<>(batch.size());
                for (Transition write : writes) {
                    results.add(applied.applied().contains(write.id())
                            ? new Result(StepEvent.Fate.COMMITTED, applied.continued().get(write.id()), sent)
                            : new Result(StepEvent.Fate.FENCED));
                }
                logFenced(writes, applied.applied());
                complete(batch, results);
                applied.newWork().forEach(node::newWork);
                return;
            } catch (RuntimeException e) {
                failures++;
                events.componentFailed(NAME, e);
                if (DatabaseErrors.isTransient(e)) {
                    if (DatabaseErrors.isUnreachable(e)) {
                        lifecycle.databaseFailed(NAME, e);
                    }
                    // The failure may have struck after COMMIT was sent: the retry checks for that.
                    ambiguous = true;
                    if (System.nanoTime() - deadline > 0) {
                        log.error("Gave up writing {} outcomes after {}: the database stayed unreachable; their rows "
                                + "stay claimed until their leases expire and the reaper runs them again",
                                batch.size(), retryTimeout, e);
                        complete(batch, batch.stream()
                                .map(pending -> new Result(StepEvent.Fate.ABANDONED)).toList());
                        return;
                    }
                    sleep(backoff(failures));
                    continue;
                }
                if (batch.size() > 1) {
                    // One write of the batch is unacceptable to the database: isolate it.
                    batch.forEach(pending -> flush(List.of(pending)));
                    return;
                }
                Transition write = writes.get(0);
                if (write.kind() == Outcome.Kind.STOP) {
                    log.error("Could not write outcome {} of instance {}; its row is left to the reaper",
                            write.kind(), write.id(), e);
                    complete(batch, List.of(new Result(StepEvent.Fate.ABANDONED)));
                    return;
                }
                // An outcome the database refuses fails the instance instead of looping through the reaper for
                // ever (docs/DESIGN.md, pitfall P10).
                log.error("The database refused outcome {} of instance {}; the instance fails instead", write.kind(),
                        write.id(), e);
                writes = List.of(write.refused(StepRunner.describe(e)));
            }
        }
    }

    /** Tells each submission of the batch what became of its transition. */
    private static void complete(List<Submission> batch, List<Result> results) {
        for (int k = 0; k < batch.size(); k++) {
            batch.get(k).written(results.get(k));
        }
    }

    /**
     * Holds the pending outcomes back while other steps still run user code, for at most the batch window from now,
     * so that their outcomes join this commit. Returns at once when nothing else runs.
     */
    private void gatherWhileOthersRun() {
        if (batchWindowNanos <= 0) {
            return;
        }
        long deadline = System.nanoTime() + batchWindowNanos;
        arrivalLock.lock();
        try {
            long left;
            while (node.stepsInUserCode() > 0 && handedOver.size() < gatherTarget && !stopped
                    && (left = deadline - System.nanoTime()) > 0) {
                arrival.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            arrivalLock.unlock();
        }
    }

    private void signalArrival() {
        arrivalLock.lock();
        try {
            arrival.signal();
        } finally {
            arrivalLock.unlock();
        }
    }

    private Duration backoff(int failures) {
        return BackgroundLoop.backoff(FIRST_RETRY, failures, maxBackoff);
    }

    private static void sleep(Duration pause) {
        LockSupport.parkNanos(pause.toNanos());
    }
}
