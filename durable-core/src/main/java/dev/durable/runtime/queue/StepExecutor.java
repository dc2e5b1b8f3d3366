package dev.durable.runtime.queue;

import dev.durable.Outcome;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.StepEvent;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.StepRunner;
import dev.durable.runtime.step.Transition;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs claimed steps, one straight line each: a claimed row waits for a slot of its queue ({@link QueueSlots}), a step
 * thread runs the user's code ({@link StepRunner}), hands the transition to the {@link Committer} and gives the slot
 * back, and is done; once the transition is committed (or fenced off) the committer calls back, and the step ends
 * ({@link RunningStep#end()}), which gives back its claim. Every way a step can end (committed, fenced, abandoned,
 * discarded at shutdown, died of an Error, never started) goes through {@link #end}.
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
    private final InFlightSteps inFlight;
    private final EngineEvents events;
    private final Executor threads;
    private final ScheduledExecutorService timer;
    private final Duration zombieGracePeriod;
    private final boolean inline;
    private final BooleanSupplier draining;
    private final Consumer<Claim> release;
    private final BiPredicate<Claim, String> returnCrashed;

    public StepExecutor(StepRunner runner, Committer committer, InFlightSteps inFlight, EngineEvents events,
            Executor threads, ScheduledExecutorService timer, EngineSettings settings, BooleanSupplier draining,
            Consumer<Claim> release, BiPredicate<Claim, String> returnCrashed) {
        this.runner = runner;
        this.committer = committer;
        this.inFlight = inFlight;
        this.events = events;
        this.threads = threads;
        this.timer = timer;
        this.zombieGracePeriod = settings.zombieGracePeriod();
        this.inline = settings.inlineNextSteps();
        this.draining = draining;
        this.release = release;
        this.returnCrashed = returnCrashed;
    }

    /**
     * Takes a row just claimed on {@code queue} by its poller: it holds one of the queue's claims
     * from now on, is kept alive by the heartbeat, and starts on a step thread as soon as the queue has a free slot.
     */
    void accept(ClaimedStep claimed, QueueSlots queue) {
        RunningStep running = new RunningStep(claimed, queue);
        inFlight.add(running);
        queue.claimed(running);
    }

    /**
     * Takes a row a local start inserted claimed, for the claim {@code queue} promised it ({@link QueueSlots#reserve()}):
     * from now on as a picked row.
     */
    void acceptAtStart(ClaimedStep claimed, QueueSlots queue) {
        RunningStep running = new RunningStep(claimed, queue);
        inFlight.add(running);
        queue.claimedAtStart(running);
    }

    /**
     * Starts a step that has just taken a slot of its queue ({@link QueueSlots}'s starter). A waiting row whose claim
     * was lost meanwhile (its instance cancelled, or reaped) does not run: its outcome would be fenced off.
     */
    void start(RunningStep running) {
        RunningStep.InterruptReason lost = running.interruptReason();
        if (lost == RunningStep.InterruptReason.CANCELLED || lost == RunningStep.InterruptReason.LEASE_LOST) {
            log.info("Not starting {}: its claim is gone ({})", running, lost);
            end(running);
            return;
        }
        try {
            threads.execute(() -> runStep(running));
        } catch (RejectedExecutionException e) {
            // The node is stopping: hand the row back (a fresh claim; an inline one is ours alone to release).
            log.warn("Could not start {}: {}", running, e.toString());
            release.accept(running.claim());
            end(running);
        }
    }

    /** Interrupts a running step and starts watching it for zombiehood. */
    public void interrupt(RunningStep running, RunningStep.InterruptReason reason) {
        ClaimedStep interrupted = running.claimed();
        if (running.interrupt(reason)) {
            log.info("Interrupting {}: {}", running, reason);
            timer.schedule(() -> checkZombie(running, interrupted), zombieGracePeriod.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** On a step thread: runs the current step and hands its transition to the committer. */
    private void runStep(RunningStep running) {
        running.attach(Thread.currentThread());
        ScheduledFuture<?> timeout = scheduleTimeout(running);
        StepRunner.Decision decision;
        try {
            decision = runner.run(running);
        } catch (Error error) {
            // Not a business failure: no outcome is written and no error handler runs,
            // as after a crash. The node knows at once, so it hands the claim back at once (attempt + 1), fenced;
            // if that write fails, leaving the in-flight set stops the heartbeat, the lease expires and the reaper
            // hands it back instead.
            cancel(timeout);
            Thread.interrupted(); // an interrupt that came with the Error must not fail the hand-back
            returnCrashed(running, error);
            finished(running, null, Committer.Result.DISCARDED);
            end(running);
            Thread.interrupted(); // detached: a late interrupt must not leak into what this thread does next
            return;
        }
        cancel(timeout);
        Transition transition = decision.transition()
                .took(Duration.ofNanos(System.nanoTime() - running.startedNanos()).toMillis());
        boolean keepClaim = inline && running.inlineSteps() < MAX_INLINE_STEPS && transition.kind() == Outcome.Kind.NEXT
                && transition.delayMillis() == 0 && !running.isZombie() && !draining.getAsBoolean();
        if (!running.beginCommitting(!keepClaim)) {
            // Released at shutdown: the row is runnable again, the outcome is discarded.
            finished(running, decision, Committer.Result.DISCARDED);
            end(running);
            Thread.interrupted();
            return;
        }
        Thread.interrupted(); // detached by beginCommitting: no interrupt comes after this one is cleared
        Transition write = keepClaim ? transition.keepingClaim(running.inlineSteps()) : transition;
        committer.submit(write, result -> committed(running, decision, result));
    }

    private void returnCrashed(RunningStep running, Error error) {
        String reason = "step '" + running.claimed().step() + "' died of " + StepRunner.describe(error);
        try {
            if (returnCrashed.test(running.claim(), reason)) {
                log.error("{} died of {}; treating it as a crash: handed back to its queue (attempt + 1)", running,
                        error.toString(), error);
            } else {
                log.error("{} died of {}; its claim was already gone (reaped), nothing to hand back", running,
                        error.toString(), error);
            }
        } catch (RuntimeException e) {
            log.error("{} died of {}; treating it as a crash. Handing it back failed ({}), so its row is left to the"
                    + " reaper once its lease expires", running, error.toString(), e.toString(), error);
        }
    }

    /**
     * On the committer's thread: the current step's transition was committed, fenced off, abandoned or discarded. The
     * claim goes on with the next step of an inline chain (which waits for a slot ahead of the queue's claimed rows),
     * or ends.
     */
    private void committed(RunningStep running, StepRunner.Decision decision, Committer.Result result) {
        finished(running, decision, result);
        if (result.fate() == StepEvent.Fate.COMMITTED && result.continued() == null
                && (leavesRowToPick(decision.transition()) || running.claimed().partitionKey() != null)) {
            running.queue().workMayBeDue();
        }
        ClaimedStep next = result.continued();
        if (next == null) {
            end(running);
            return;
        }
        if (draining.getAsBoolean()) {
            // The node is stopping: hand the row back instead of starting another step on it.
            release.accept(next.claim());
            end(running);
            return;
        }
        running.continueWith(next); // same claim: it waits for a slot again, first in line
        running.queue().continued(running);
    }

    /** Whether a committed transition may leave its row runnable, now or at a due time. */
    private static boolean leavesRowToPick(Transition transition) {
        return switch (transition.kind()) {
            case NEXT, RETRY, AWAIT -> true;
            case DONE, STOP -> false;
        };
    }

    private void finished(RunningStep running, StepRunner.@Nullable Decision decision,
            Committer.Result result) {
        ClaimedStep claimed = running.claimed();
        if (decision != null && result.fate() == StepEvent.Fate.COMMITTED) {
            if (decision.transition().kind() == Outcome.Kind.STOP) {
                reportFailure(claimed, decision);
            } else if (decision.suspends()) {
                reportSuspension(claimed, decision);
            } else if (decision.retriedByPolicy() && decision.error() != null) {
                reportRetry(claimed, decision);
            }
        }
        events.stepFinished(new StepEvent(claimed.id(), claimed.machine(), claimed.version(), claimed.step(),
                claimed.queue(), claimed.leaseToken(), decision == null ? null : decision.outcome(), result.fate(),
                Duration.ofNanos(System.nanoTime() - running.startedNanos()),
                decision == null ? null : decision.error()));
    }

    /**
     * An instance has just ended {@code failed}: said once, at WARN, by the node whose write ended it (a fenced
     * write ended nothing). The reason is what {@code last_error} holds; never the state, which may hold personal
     * data.
     */
    private static void reportFailure(ClaimedStep claimed, StepRunner.Decision decision) {
        String reason = decision.transition().error();
        if (decision.error() == null) {
            log.warn("Instance {} ({} v{}) failed at step '{}', attempt {}: {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), claimed.attempt(), reason);
        } else {
            log.warn("Instance {} ({} v{}) failed at step '{}', attempt {}: {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), claimed.attempt(), reason, decision.error());
        }
    }

    /**
     * A failed step has just been given a retry by its retry policy (docs/DESIGN.md, "Retry policies"): said at INFO,
     * without the stack trace, which the WARN of the instance's failure carries if the policy gives up.
     */
    private static void reportRetry(ClaimedStep claimed, StepRunner.Decision decision) {
        log.info("Instance {} ({} v{}) failed at step '{}', attempt {}, retried in {} by its retry policy: {}",
                claimed.id(), claimed.machine(), claimed.version(), claimed.step(), claimed.attempt(),
                Duration.ofMillis(decision.transition().delayMillis()), decision.transition().error());
    }

    /**
     * An instance has just been suspended instead of running its step (docs/DESIGN.md, "Suspension"): said once per
     * suspension, at WARN, by the node whose write suspended it, with the upcaster's error when one failed; never the
     * state. A retry that finds it no better suspends it again, and says so again.
     */
    private void reportSuspension(ClaimedStep claimed, StepRunner.Decision decision) {
        String reason = decision.transition().error();
        if (decision.error() == null) {
            log.warn("Instance {} ({} v{}) suspended at step '{}': {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), reason);
        } else {
            log.warn("Instance {} ({} v{}) suspended at step '{}': {}", claimed.id(), claimed.machine(),
                    claimed.version(), claimed.step(), reason, decision.error());
        }
        events.instanceSuspended(claimed.id(), claimed.machine(), claimed.version(), claimed.step(),
                String.valueOf(reason));
    }

    /** The step's work on its claim is over: it ends, which gives back its claim (and slot), and leaves the in-flight set. */
    public void end(RunningStep running) {
        running.end();
        inFlight.remove(running);
        if (running.isZombie()) {
            log.warn("Zombie {} has ended", running);
        }
    }

    private @Nullable ScheduledFuture<?> scheduleTimeout(RunningStep running) {
        Duration timeout = runner.timeoutOf(running.claimed());
        if (timeout == null) {
            return null;
        }
        return timer.schedule(() -> interrupt(running, RunningStep.InterruptReason.TIMEOUT), timeout.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private static void cancel(@Nullable ScheduledFuture<?> timeout) {
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    private void checkZombie(RunningStep running, ClaimedStep interrupted) {
        RunningStep.Phase phase = running.phase();
        if (running.claimed() == interrupted && (phase == RunningStep.Phase.RUNNING
                || phase == RunningStep.Phase.RELEASED) && !running.isZombie()) {
            running.markZombie();
            log.error("ZOMBIE: {} was interrupted ({}) {} ago and has not ended; its slot stays taken until it does. "
                    + "Step code must not ignore interruption.", running, running.interruptReason(),
                    zombieGracePeriod);
            ClaimedStep claimed = running.claimed();
            events.zombieDetected(claimed.id(), claimed.machine(), claimed.step());
        }
    }
}
