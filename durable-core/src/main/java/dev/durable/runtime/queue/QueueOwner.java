package dev.durable.runtime.queue;

import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.LimitStatus;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.support.NodeLifecycle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;

/**
 * The owner of one queue on this node: it alone holds the queue's slots and claims, and alone decides when a claimed
 * row runs and when, and how much, to pick (docs/DESIGN.md, "The life of a step"). Everyone else only tells it what
 * happened: its poller thread that a pick claimed rows; a step thread that its user code is over; the committer,
 * through the {@link StepExecutor}, that a claim ended or goes on; the heartbeat and cancels that a claim is gone; the
 * node that it starts or stops; local work and the probe that rows may be due.
 *
 * <p>An actor whose turns run on the thread that sends the event: each event takes the owner's lock, hands the event
 * to its {@link QueueDecider} (which decides without threads, clock or database) and lets go; the sending thread then
 * carries out the decisions outside the lock — it starts steps on step threads, wakes the poller, has rows checked or
 * handed back. So no event waits for another thread: a step thread that gives back its slot starts the next waiting
 * row itself, and the committer's thread starts an inline chain's next step.
 *
 * <p>Its poller thread (a {@link BackgroundLoop}) asks it at each turn whether to pick, runs the pick
 * ({@link ClaimRepository#pick}) and reports what it claimed.
 */
public final class QueueOwner {

    /**
     * The longest a poller, or a sweep waiting for a due time, sleeps without being woken: it learns of work from the
     * probe, from this node's own starts, signals and commits, and from the next due row it asked for; this is only a
     * safety net.
     */
    public static final Duration LONGEST_PAUSE = Duration.ofNanos(QueueDecider.LONGEST_PAUSE_NANOS);
    /** The longest the poller ignores the probe after picks the probe asked for found nothing. */
    public static final Duration AFTER_FUTILE_PICK = Duration.ofNanos(QueueDecider.AFTER_FUTILE_PICK_NANOS);
    /**
     * How long a claimed row may wait for a slot before its row is checked, when its step is about to start: the
     * longest a step may be entered after its instance was cancelled on another node (docs/DESIGN.md, "Cancel").
     */
    public static final Duration CHECK_AFTER = Duration.ofNanos(QueueDecider.CHECK_AFTER_NANOS);

    private static final Logger log = LoggerFactory.getLogger(QueueOwner.class);
    private static final int PARTITION_RACE_RETRIES = 3;

    /**
     * What the owner of a queue needs to know of its settings.
     *
     * @param concurrency how many of its steps may run user code at once
     * @param batchSize   the most rows one pick claims
     * @param batchWindow how long a pick may wait for claims about to end, and the committer for outcomes
     * @param pollInterval how soon the poller looks again after a pick that found work
     * @param lease       the lease a pick takes
     * @param maxRetryBackoff the longest pause of the poller after failed picks
     * @param limits      the queue's cluster-wide limits (docs/DESIGN.md, "Cluster-wide limits")
     */
    public record Settings(int concurrency, int batchSize, Duration batchWindow, Duration pollInterval,
            Duration lease, Duration maxRetryBackoff, ClusterLimits limits) {
    }

    /** Whether the node may pick now: the deploy check may hold it back ({@code DeployGuard}). */
    public interface Gate {
        boolean allowsPicking();
    }

    private final String name;
    private final Map<String, List<Integer>> machines;
    private final String nodeId;
    private final Duration lease;
    private final ClaimRepository claims;
    private final StepExecutor steps;
    private final EngineEvents events;
    private final Gate gate;
    private final BackgroundLoop poller;
    /** The picks of a queue with cluster-wide limits; null without: its picks, and local starts, are as ever. */
    private final @Nullable LimitedPicks limited;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition noClaims = lock.newCondition();
    private final QueueDecider<RunningStep> decider;
    /** Steps in user code now, published after every event: the committer reads it without the lock. */
    private volatile int inUserCode;
    private volatile boolean paused;
    /** Someone waits for the queue's last claim to end (a stopping node): the end that makes it signals. */
    private int waitingForNoClaims;

    /**
     * @param machines the machine versions its picks take, by machine
     */
    public QueueOwner(String name, Settings settings, Map<String, List<Integer>> machines, String nodeId,
            ClaimRepository claims, StepExecutor steps, EngineEvents events, NodeLifecycle lifecycle, Gate gate) {
        this.name = name;
        this.machines = Map.copyOf(machines);
        this.nodeId = nodeId;
        this.lease = settings.lease();
        this.claims = claims;
        this.steps = steps;
        this.events = events;
        this.gate = gate;
        this.decider = new QueueDecider<>(settings.concurrency(), settings.batchSize(), settings.batchWindow(),
                settings.pollInterval());
        this.poller = new BackgroundLoop("durable-poller-" + name, this::pollOnce, lifecycle, events,
                settings.maxRetryBackoff());
        this.limited = settings.limits().any() ? new LimitedPicks(name, settings.limits(), claims.limits(), events,
                settings.pollInterval()) : null;
    }

    public String name() {
        return name;
    }

    public int concurrency() {
        return decider.concurrency();
    }

    /** Whether this node works the queue at all (it has slots and machines to run). */
    public boolean isActive() {
        return decider.concurrency() > 0 && !machines.isEmpty();
    }

    public boolean isPaused() {
        return paused;
    }

    // ---- The node's events

    /** The node starts (again): the poller's first turn comes at once. */
    public void start() {
        if (!isActive()) {
            return;
        }
        lock.lock();
        try {
            decider.start();
        } finally {
            lock.unlock();
        }
        poller.start();
    }

    /** Stops picking: the poller's thread ends after its current turn. Running steps go on. */
    public void stopPolling(Duration timeout) {
        poller.stop(timeout);
    }

    /** The node stops: no more picks or inline continuations; rows that have not started are handed back at once. */
    public void drain() {
        apply(turn(QueueDecider::drain));
    }

    /** The grace period is over: claims still running are handed back and their steps interrupted. */
    public void releaseUnfinished() {
        apply(turn(QueueDecider::releaseUnfinished));
    }

    public void pause() {
        lock.lock();
        try {
            decider.pause();
            paused = true;
        } finally {
            lock.unlock();
        }
        log.info("Queue {} paused on this node", name);
    }

    public void resume() {
        boolean wake;
        lock.lock();
        try {
            wake = decider.resume();
            paused = false;
        } finally {
            lock.unlock();
        }
        log.info("Queue {} resumed on this node", name);
        if (wake) {
            poller.wake();
        }
    }

    /** Local work arrived (a start, a signal, rows made runnable): the poller looks now. */
    public void wake() {
        boolean wake;
        lock.lock();
        try {
            wake = decider.wake();
        } finally {
            lock.unlock();
        }
        if (wake) {
            poller.wake();
        }
    }

    /** The probe found a due row, made by any node: the poller looks now, unless such finds led nowhere lately. */
    public void workFound() {
        boolean wake;
        lock.lock();
        try {
            wake = decider.workFound(System.nanoTime());
        } finally {
            lock.unlock();
        }
        if (wake) {
            poller.wake();
        }
    }

    /**
     * The heartbeat found {@code claim} gone: its step is interrupted, or, if it has not started, it never does.
     *
     * @return whether a step of this queue held the claim and was interrupted or dropped
     */
    boolean claimLost(Claim claim) {
        Decisions<RunningStep> decisions = turn(queue -> queue.claimLost(claim.id(), claim.leaseToken(),
                System.nanoTime()));
        apply(decisions);
        return !decisions.interrupt().isEmpty() || !decisions.dropped().isEmpty();
    }

    /**
     * Instance {@code id} was cancelled: its claims here never start another step and a step in user code is
     * interrupted. The entry point for every way the node hears of a cancel (docs/DESIGN.md, "Cancel").
     */
    void cancelled(long id) {
        apply(turn(queue -> queue.cancelled(id, System.nanoTime())));
    }

    // ---- Local starts (through StartClaims; docs/DESIGN.md, "Local starts")

    /**
     * A local start is about to insert a row of {@code machine} at {@code version}: whether the row may claim itself,
     * to start here at once. Only for a version the queue's picks take, while the deploy check lets the node pick, and
     * as the decider allows ({@link QueueDecider#promise}); never on a queue with cluster-wide limits.
     */
    boolean promise(String machine, int version) {
        List<Integer> versions = machines.get(machine);
        if (limited != null || versions == null || !versions.contains(version) || !gate.allowsPicking()) {
            return false;
        }
        lock.lock();
        try {
            return decider.promise();
        } finally {
            lock.unlock();
        }
    }

    /** Takes back a promise: the start did not claim its row, or did not commit. */
    void unpromise() {
        apply(turn(QueueDecider::unpromise));
    }

    /**
     * The start committed rows it claimed with this queue's promises: they join as picked rows do, counted as picked
     * ({@code EngineStats.picked}). The claims are known held from now: no cancel of a row can commit before the start
     * that inserted it.
     */
    void claimedAtStart(List<ClaimedStep> rows) {
        List<RunningStep> claimed = new ArrayList<>(rows.size());
        for (ClaimedStep row : rows) {
            claimed.add(new RunningStep(row, this, steps));
        }
        Decisions<RunningStep> decisions;
        lock.lock();
        try {
            long now = System.nanoTime();
            decisions = decider.claimedAtStart(claimed, now, now);
            published();
        } finally {
            lock.unlock();
        }
        if (decisions.handBack().isEmpty()) {
            events.picked(name, claimed.size());
        }
        apply(decisions);
    }

    /**
     * A test kit's run of one step ({@code EngineDriver}): claims row {@code id} if it is a due runnable row of this
     * queue, as a pick would, and runs it as a local start's row. Whether it did.
     */
    public boolean runOne(long id) {
        List<ClaimedStep> rows = isActive() ? claims.pickOne(id, name, machines, nodeId, lease) : List.of();
        if (!rows.isEmpty()) {
            claimedAtStart(rows);
        }
        return !rows.isEmpty();
    }

    // ---- The steps' events (from StepExecutor)

    /** On the step's thread: its user code is over. What becomes of its outcome. */
    Decisions.AfterUserCode userCodeOver(RunningStep step, boolean mayContinue) {
        Decisions<RunningStep> decisions;
        lock.lock();
        try {
            decisions = decider.userCodeOver(step, mayContinue, System.nanoTime());
            published();
        } finally {
            lock.unlock();
        }
        apply(decisions);
        return decisions.afterUserCode();
    }

    /** The step's claim ended; {@code leavesWork}: its committed outcome may have left a row to pick. */
    void ended(RunningStep step, boolean leavesWork) {
        Decisions<RunningStep> decisions;
        lock.lock();
        try {
            decisions = decider.ended(step, leavesWork, System.nanoTime());
            published();
        } finally {
            lock.unlock();
        }
        apply(decisions);
    }

    /** A step that took a slot ended before its user code began (its claim went, or it could not be started). */
    void neverRan(RunningStep step) {
        apply(turn(queue -> queue.neverRan(step, System.nanoTime())));
    }

    /** On the committer's thread: the claim goes on with an inline chain's next step, held since {@code heldSince}. */
    void continued(RunningStep step, long heldSince) {
        Decisions<RunningStep> decisions;
        lock.lock();
        try {
            decisions = decider.continued(step, heldSince, System.nanoTime());
            published();
        } finally {
            lock.unlock();
        }
        apply(decisions);
    }

    /** The rows of claims that waited past the bound were checked ({@link StepExecutor#check}). */
    void checked(List<RunningStep> held, List<RunningStep> gone) {
        apply(turn(queue -> queue.checked(held, gone, System.nanoTime())));
    }

    /** The rows of waiting claims were read beside a check ({@link StepExecutor#check}). */
    void refreshed(List<RunningStep> held, List<RunningStep> gone, List<RunningStep> unanswered) {
        apply(turn(queue -> queue.refreshed(held, gone, unanswered, System.nanoTime())));
    }

    // ---- The poller's thread

    private Duration pollOnce() {
        boolean mayPick = gate.allowsPicking();
        Decisions.Poll poll;
        lock.lock();
        try {
            poll = decider.poll(System.nanoTime(), mayPick);
        } finally {
            lock.unlock();
        }
        if (!poll.picks()) {
            return Duration.ofNanos(poll.pauseNanos());
        }
        long sent = System.nanoTime();
        List<ClaimedStep> rows;
        Duration heldBackFor = null;
        try {
            if (limited != null) {
                LimitRepository.LimitedPick limitedPick = limited.pick(machines, poll.limit(), nodeId, lease);
                rows = limitedPick.rows();
                heldBackFor = limited.heldBackFor(limitedPick, poll.limit());
            } else {
                rows = pick(poll.limit());
            }
        } catch (RuntimeException e) {
            lock.lock();
            try {
                decider.pickFailed();
            } finally {
                lock.unlock();
            }
            throw e;
        }
        List<RunningStep> claimed = new ArrayList<>(rows.size());
        for (ClaimedStep row : rows) {
            claimed.add(new RunningStep(row, this, steps));
        }
        if (!rows.isEmpty()) {
            events.picked(name, rows.size());
        }
        Decisions<RunningStep> decisions;
        lock.lock();
        try {
            decisions = decider.picked(claimed, poll.limit(), heldBackFor != null, sent, System.nanoTime());
            published();
        } finally {
            lock.unlock();
        }
        apply(decisions);
        if (heldBackFor != null) {
            return heldBackFor;
        }
        Decisions.Poll next = decisions.poll();
        if (next == null || !next.untilNextDue()) {
            return next == null ? Duration.ZERO : Duration.ofNanos(next.pauseNanos());
        }
        // Until the next waiting row falls due (a durable timer, a retry's back-off), plus a millisecond so that it
        // is due when the pick runs: a timer fires a pick's time after it falls due, not up to a poll interval later.
        return BackgroundLoop.pauseUntil(claims.millisUntilNextEligible(name), Duration.ofNanos(next.pauseNanos()));
    }

    private List<ClaimedStep> pick(int limit) {
        for (int attempt = 1; ; attempt++) {
            try {
                return claims.pick(name, machines, limit, nodeId, lease);
            } catch (DuplicateKeyException e) {
                // Another node claimed a row of the same partition key at the same moment; nothing was claimed.
                if (attempt >= PARTITION_RACE_RETRIES) {
                    log.debug("Pick of queue {} kept racing on partition keys; next poll retries", name);
                    return List.of();
                }
            }
        }
    }

    // ---- Carrying out decisions, outside the lock

    private void apply(Decisions<RunningStep> decisions) {
        if (decisions.wakesPoller()) {
            poller.wake();
        }
        for (RunningStep step : decisions.dropped()) {
            log.info("Not starting {}: its claim is gone (its instance was cancelled, or its lease lost)", step);
        }
        if (!decisions.handBack().isEmpty()) {
            handBack(decisions.handBack());
        }
        for (RunningStep step : decisions.interrupt()) {
            steps.interrupt(step, decisions.reason());
        }
        if (!decisions.check().isEmpty() || !decisions.refresh().isEmpty()) {
            steps.check(decisions.check(), decisions.refresh());
        }
        for (RunningStep step : decisions.start()) {
            steps.launch(step);
        }
    }

    private void handBack(List<RunningStep> released) {
        steps.handBack(released);
        apply(turn(queue -> queue.handedBack(released, System.nanoTime())));
    }

    /**
     * One of the rarer events: its turn under the lock, its decisions returned for the caller to carry out. The hot
     * ones (a step's user code over, a claim ended or continued, a pick) are written out, so as to build no lambda.
     */
    private Decisions<RunningStep> turn(Function<QueueDecider<RunningStep>, Decisions<RunningStep>> event) {
        lock.lock();
        try {
            Decisions<RunningStep> decisions = event.apply(decider);
            published();
            return decisions;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock, after every event: what others read without it, and the wait for the last claim. */
    private void published() {
        inUserCode = decider.running();
        if (waitingForNoClaims > 0 && decider.claims() == 0) {
            noClaims.signalAll();
        }
    }

    // ---- What the node's views read

    /** Whether an inline chain may go on with its next step without a pick: not when a rate counts step starts. */
    boolean continuesInline() {
        return limited == null || limited.limits().rate() == null;
    }

    /** The queue's cluster-wide limits, with their use as its last pick saw it; null when it has none. */
    public @Nullable LimitStatus limitStatus() {
        return limited == null ? null : limited.status();
    }

    /**
     * Rows this node holds for the queue (waiting, being checked, running, committing, or being handed back), and the
     * claims promised to local starts whose rows have not arrived yet.
     */
    public int claims() {
        lock.lock();
        try {
            return decider.claims() + decider.promised();
        } finally {
            lock.unlock();
        }
    }

    /** Steps in user code now (or about to be); read without the lock. */
    int inUserCode() {
        return inUserCode;
    }

    /** Adds the claims whose leases the node keeps alive: waiting, being checked, running or committing. */
    void addHeldClaims(List<Claim> to) {
        lock.lock();
        try {
            decider.forEachHeld(step -> {
                HeldClaim.Phase phase = step.phase();
                if (phase != HeldClaim.Phase.RELEASED && phase != HeldClaim.Phase.ENDED) {
                    to.add(step.claim());
                }
            });
        } finally {
            lock.unlock();
        }
    }

    /** Steps that ignored an interrupt past the zombie grace period and have not ended. */
    int zombies() {
        int[] zombies = new int[1];
        lock.lock();
        try {
            decider.forEachHeld(step -> zombies[0] += step.isZombie() ? 1 : 0);
        } finally {
            lock.unlock();
        }
        return zombies[0];
    }

    /** Waits until the queue holds no claim, at most until {@code deadline} (System.nanoTime): whether none is left. */
    boolean awaitNoClaims(long deadline) {
        lock.lock();
        waitingForNoClaims++;
        try {
            while (decider.claims() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                noClaims.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return decider.claims() == 0;
        } finally {
            waitingForNoClaims--;
            lock.unlock();
        }
    }

    /** How many claimed rows may wait for a slot now, from the measured speed of the queue's steps (a test's view). */
    public int prefetch() {
        lock.lock();
        try {
            return decider.prefetch();
        } finally {
            lock.unlock();
        }
    }

    /** Claims whose outcome is committing (a test's view). */
    public int committing() {
        lock.lock();
        try {
            return decider.committing();
        } finally {
            lock.unlock();
        }
    }

    /** Claims running or waiting, not committing (a test's view). */
    public int claimsNotCommitting() {
        lock.lock();
        try {
            return decider.claims() - decider.committing();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "queue " + name;
    }
}
