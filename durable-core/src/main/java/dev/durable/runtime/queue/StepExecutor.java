package dev.durable.runtime.queue;

import dev.durable.Outcome;
import dev.durable.runtime.StepEvent;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.StepRunner;
import dev.durable.runtime.step.Transition;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.support.TraceHeaders;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the steps of claims their queue's owner started, one straight line each (docs/DESIGN.md, "The life of a
 * step"): a step thread runs the user's code ({@link StepRunner}), tells the owner its user code is over (which gives
 * the slot to the next waiting row), hands the transition to the {@link Committer} and is done; when the committer
 * says what became of it ({@link RunningStep#written}), the claim ends, or goes on with an inline chain's next step,
 * and the owner hears of it. It carries out the owner's other decisions too: it checks the rows of claims that waited
 * past the bound, in one statement per group, hands rows back and interrupts steps.
 *
 * <p>With inline execution on, a {@code next} keeps the claim: once its commit is confirmed, the next step runs on
 * the same claim as soon as a slot is free, ahead of the queue's waiting rows, up to {@link #MAX_INLINE_STEPS} steps
 * in a row, saving a pick per step. The guarantee is unchanged: every step's outcome commits before the next step
 * starts.
 *
 * <p>It also enforces step timeouts (the thread is interrupted and the step takes the error path) and watches
 * interrupted steps: one that has not ended {@code zombieGracePeriod} after its interrupt is a zombie, reported and
 * counted; its slot stays taken and its claim stays held until it does end, so its instance never runs twice at
 * once.
 */
public final class StepExecutor {

    /** The longest inline chain before the row goes back to its queue, so other work and other nodes get a turn. */
    static final int MAX_INLINE_STEPS = 100;

    private static final Logger log = LoggerFactory.getLogger(StepExecutor.class);

    private final StepRunner runner;
    private final Committer committer;
    private final ClaimRepository claims;
    private final EngineEvents events;
    private final Executor threads;
    private final ScheduledExecutorService timer;
    private final Duration zombieGracePeriod;
    private final boolean inline;
    private final ObservationRegistry observations;

    /**
     * @param inline       whether a {@code next} without delay keeps its claim and runs the next step at once
     * @param observations where each step execution is observed; {@code ObservationRegistry.NOOP} for nowhere
     */
    public StepExecutor(StepRunner runner, Committer committer, ClaimRepository claims, EngineEvents events,
            Executor threads, ScheduledExecutorService timer, Duration zombieGracePeriod, boolean inline,
            ObservationRegistry observations) {
        this.observations = observations;
        this.runner = runner;
        this.committer = committer;
        this.claims = claims;
        this.events = events;
        this.threads = threads;
        this.timer = timer;
        this.zombieGracePeriod = zombieGracePeriod;
        this.inline = inline;
    }

    /** Starts the step of a claim that took a slot, on a step thread. */
    void launch(RunningStep step) {
        try {
            threads.execute(() -> runStep(step));
        } catch (RejectedExecutionException e) {
            // The node is stopping: hand the row back (a fresh claim; an inline one is ours alone to release).
            log.warn("Could not start {}: {}", step, e.toString());
            handBack(List.of(step));
            step.owner().neverRan(step);
        }
    }

    /**
     * Checks the rows of claims that waited past the bound before their steps start, and reads those of claims still
     * waiting ({@code refreshing}), in one statement, on a step thread: the owner hears which are still this node's
     * claims (checked ones start) and which are gone (they never do).
     */
    void check(List<RunningStep> waited, List<RunningStep> refreshing) {
        try {
            threads.execute(() -> checkRows(waited, refreshing));
        } catch (RejectedExecutionException e) {
            checkRows(waited, refreshing); // the node is stopping: on this thread, once
        }
    }

    private void checkRows(List<RunningStep> waited, List<RunningStep> refreshing) {
        List<RunningStep> all = new ArrayList<>(waited.size() + refreshing.size());
        all.addAll(waited);
        all.addAll(refreshing);
        Set<Claim> stillClaimed;
        try {
            stillClaimed = new HashSet<>(claims.stillClaimed(all.stream().map(RunningStep::claim).toList()));
        } catch (RuntimeException e) {
            // Unchecked, a step might start after its instance was cancelled: none starts, and their leases expire.
            if (!waited.isEmpty()) {
                log.warn("Could not check {} claimed rows that waited for a slot; they do not run now, their rows are "
                        + "left to the reaper: {}", waited.size(), e.toString());
                waited.get(0).owner().checked(List.of(), waited);
            }
            if (!refreshing.isEmpty()) {
                refreshing.get(0).owner().refreshed(List.of(), List.of(), refreshing);
            }
            return;
        }
        if (!waited.isEmpty()) {
            Map<Boolean, List<RunningStep>> held = byStillClaimed(waited, stillClaimed);
            waited.get(0).owner().checked(held.get(true), held.get(false));
        }
        if (!refreshing.isEmpty()) {
            Map<Boolean, List<RunningStep>> held = byStillClaimed(refreshing, stillClaimed);
            refreshing.get(0).owner().refreshed(held.get(true), held.get(false), List.of());
        }
    }

    /** The steps whose claims are still held (true) and those whose claims are gone (false), each in its order. */
    private static Map<Boolean, List<RunningStep>> byStillClaimed(List<RunningStep> steps, Set<Claim> stillClaimed) {
        return steps.stream().collect(Collectors.partitioningBy(step -> stillClaimed.contains(step.claim())));
    }

    /** Hands claims back to runnable in one fenced statement; if the database cannot be reached, leases expire. */
    void handBack(List<RunningStep> released) {
        List<Claim> handed = released.stream().map(RunningStep::claim).toList();
        try {
            List<Long> ids = claims.release(handed);
            events.released(ids.size());
            if (!ids.isEmpty()) {
                log.info("Released {} claimed steps back to runnable: {}", ids.size(), ids);
            }
        } catch (RuntimeException e) {
            log.warn("Could not release {} claims; their leases will expire instead: {}", handed.size(), e.toString());
        }
    }

    /** Interrupts a step in user code and starts watching it for zombiehood. */
    void interrupt(RunningStep step, @Nullable InterruptReason reason) {
        if (reason == null) {
            return;
        }
        ClaimedStep interrupted = step.claimed();
        if (step.interrupt(reason)) {
            log.info("Interrupting {}: {}", step, reason);
            timer.schedule(() -> checkZombie(step, interrupted), zombieGracePeriod.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** On a step thread: runs the current step and hands its transition to the committer. */
    private void runStep(RunningStep step) {
        step.attach(Thread.currentThread());
        if (step.phase() != HeldClaim.Phase.RUNNING || step.gone()) {
            // Its claim went (a cancel, a lost lease, a hand-back) between the start decision and this thread.
            step.detach();
            Thread.interrupted();
            log.info("Not starting {}: its claim is gone ({})", step, step.phase() == HeldClaim.Phase.RUNNING
                    ? step.interruptReason() : "released");
            step.owner().neverRan(step);
            return;
        }
        ScheduledFuture<?> timeout = scheduleTimeout(step);
        StepRunner.Ending ending;
        String traceLink = null;
        ClaimedStep claimed = step.claimed();
        TraceHeaders.Continuation trace = TraceHeaders.forStep(claimed.traceContext(), claimed.attempt());
        try (StepScope scope = StepScope.open(observations, claimed, trace.parent(), trace.link())) {
            try {
                ending = runner.run(step);
            } catch (Error error) {
                scope.ended(null, error);
                throw error;
            }
            scope.ended(ending.outcome(), ending.error());
            traceLink = TraceHeaders.linkTo(scope.own());
        } catch (Error error) {
            // Not a business failure: no outcome is written and no error handler runs, as after a crash. The node
            // knows at once, so it hands the claim back at once (attempt + 1), fenced; if that write fails, the
            // claim's end stops the heartbeat, the lease expires and the reaper hands it back instead.
            cancel(timeout);
            step.detach();
            Thread.interrupted(); // an interrupt that came with the Error must not fail the hand-back
            returnCrashed(step, error);
            finished(step, null, Committer.Result.DISCARDED);
            step.owner().ended(step, false);
            Thread.interrupted();
            return;
        }
        cancel(timeout);
        Transition transition = ending.transition()
                .took(Duration.ofNanos(System.nanoTime() - step.startedNanos()).toMillis(), traceLink);
        boolean mayContinue = inline && step.inlineSteps() < MAX_INLINE_STEPS && step.owner().continuesInline()
                && transition.kind() == Outcome.Kind.NEXT && transition.delayMillis() == 0 && transition.at() == null
                && !step.isZombie();
        step.detach();
        // The owner starts the next waiting row on this thread.
        Decisions.AfterUserCode afterUserCode = step.owner().userCodeOver(step, mayContinue);
        Thread.interrupted(); // detached: no interrupt comes after this one is cleared
        if (afterUserCode == Decisions.AfterUserCode.DISCARD) {
            // Released at shutdown: the row is runnable again, the outcome is discarded.
            finished(step, ending, Committer.Result.DISCARDED);
            step.owner().ended(step, false);
            return;
        }
        step.committing(ending, afterUserCode == Decisions.AfterUserCode.CONTINUE
                ? transition.continuing(step.inlineSteps()) : transition);
        committer.submit(step);
    }

    private void returnCrashed(RunningStep step, Error error) {
        String reason = "step '" + step.claimed().step() + "' died of " + StepRunner.describe(error);
        try {
            if (claims.returnCrashed(step.claim(), reason)) {
                log.error("{} died of {}; treating it as a crash: handed back to its queue (attempt + 1)", step,
                        error.toString(), error);
            } else {
                log.error("{} died of {}; its claim was already gone (reaped), nothing to hand back", step,
                        error.toString(), error);
            }
        } catch (RuntimeException e) {
            log.error("{} died of {}; treating it as a crash. Handing it back failed ({}), so its row is left to the"
                    + " reaper once its lease expires", step, error.toString(), e.toString(), error);
        }
    }

    /**
     * On the committer's thread: the current step's transition was committed, fenced off, abandoned or discarded. The
     * claim goes on with the next step of an inline chain, or ends; its owner hears of it.
     */
    void written(RunningStep step, Committer.Result result) {
        StepRunner.Ending ending = step.ending();
        finished(step, ending, result);
        ClaimedStep next = result.continued();
        if (next != null) {
            step.continueWith(next); // same claim: it waits for a slot again, first in line
            step.owner().continued(step, result.sentNanos());
            return;
        }
        boolean leavesWork = result.fate() == StepEvent.Fate.COMMITTED
                && (leavesRowToPick(ending.transition()) || step.claimed().partitionKey() != null);
        step.owner().ended(step, leavesWork);
        if (step.isZombie()) {
            log.warn("Zombie {} has ended", step);
        }
    }

    /** Whether a committed transition may leave its row runnable, now or at a due time. */
    private static boolean leavesRowToPick(Transition transition) {
        return switch (transition.kind()) {
            case NEXT, RETRY, AWAIT -> true;
            case DONE, STOP -> false;
        };
    }

    private void finished(RunningStep step, StepRunner.@Nullable Ending ending, Committer.Result result) {
        ClaimedStep claimed = step.claimed();
        if (ending != null && result.fate() == StepEvent.Fate.COMMITTED) {
            if (ending.transition().kind() == Outcome.Kind.STOP) {
                reportFailure(claimed, ending);
            } else if (ending.suspends()) {
                reportSuspension(claimed, ending);
            } else if (ending.retriedByPolicy() && ending.error() != null) {
                reportRetry(claimed, ending);
            }
        }
        events.stepFinished(new StepEvent(claimed.id(), claimed.machine(), claimed.version(), claimed.step(),
                claimed.queue(), claimed.leaseToken(), ending == null ? null : ending.outcome(), result.fate(),
                Duration.ofNanos(System.nanoTime() - step.startedNanos()),
                ending == null ? null : ending.error()));
    }

    /**
     * An instance has just ended {@code failed}: said once, at WARN, by the node whose write ended it (a fenced
     * write ended nothing). The reason is what {@code last_error} holds; never the state, which may hold personal
     * data.
     */
    private static void reportFailure(ClaimedStep claimed, StepRunner.Ending ending) {
        String reason = ending.transition().error();
        if (ending.error() == null) {
            log.warn("Instance {} ({} v{}) failed at step '{}', attempt {}: {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), claimed.attempt(), reason);
        } else {
            log.warn("Instance {} ({} v{}) failed at step '{}', attempt {}: {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), claimed.attempt(), reason, ending.error());
        }
    }

    /**
     * A failed step has just been given a retry by its retry policy (docs/DESIGN.md, "Retry policies"): said at INFO,
     * without the stack trace, which the WARN of the instance's failure carries if the policy gives up.
     */
    private static void reportRetry(ClaimedStep claimed, StepRunner.Ending ending) {
        log.info("Instance {} ({} v{}) failed at step '{}', attempt {}, retried in {} by its retry policy: {}",
                claimed.id(), claimed.machine(), claimed.version(), claimed.step(), claimed.attempt(),
                Duration.ofMillis(ending.transition().delayMillis()), ending.transition().error());
    }

    /**
     * An instance has just been suspended instead of running its step (docs/DESIGN.md, "Suspension"): said once per
     * suspension, at WARN, by the node whose write suspended it, with the upcaster's error when one failed; never the
     * state. A retry that finds it no better suspends it again, and says so again.
     */
    private void reportSuspension(ClaimedStep claimed, StepRunner.Ending ending) {
        String reason = ending.transition().error();
        if (ending.error() == null) {
            log.warn("Instance {} ({} v{}) suspended at step '{}': {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), reason);
        } else {
            log.warn("Instance {} ({} v{}) suspended at step '{}': {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), reason, ending.error());
        }
        events.instanceSuspended(claimed.id(), claimed.machine(), claimed.version(), claimed.step(),
                String.valueOf(reason));
    }

    private @Nullable ScheduledFuture<?> scheduleTimeout(RunningStep step) {
        Duration timeout = runner.timeoutOf(step.claimed());
        if (timeout == null) {
            return null;
        }
        return timer.schedule(() -> interrupt(step, InterruptReason.TIMEOUT), timeout.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private static void cancel(@Nullable ScheduledFuture<?> timeout) {
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    private void checkZombie(RunningStep step, ClaimedStep interrupted) {
        HeldClaim.Phase phase = step.phase();
        if (step.claimed() == interrupted && (phase == HeldClaim.Phase.RUNNING || phase == HeldClaim.Phase.RELEASED)
                && !step.isZombie()) {
            step.markZombie();
            log.error("ZOMBIE: {} was interrupted ({}) {} ago and has not ended; its slot stays taken until it does. "
                    + "Step code must not ignore interruption.", step, step.interruptReason(), zombieGracePeriod);
            ClaimedStep claimed = step.claimed();
            events.zombieDetected(claimed.id(), claimed.machine(), claimed.step());
        }
    }
}
