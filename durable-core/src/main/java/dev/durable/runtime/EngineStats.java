package dev.durable.runtime;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Counters the engine keeps about itself since it was built; read by tests, the actuator endpoint and metrics.
 */
public final class EngineStats {

    final LongAdder picked = new LongAdder();
    final LongAdder picks = new LongAdder();
    final LongAdder outcomeFlushes = new LongAdder();
    final LongAdder stepsFinished = new LongAdder();
    final LongAdder outcomesCommitted = new LongAdder();
    final LongAdder outcomesFenced = new LongAdder();
    final LongAdder outcomesAbandoned = new LongAdder();
    final LongAdder outcomesDiscarded = new LongAdder();
    final LongAdder leasesLost = new LongAdder();
    final LongAdder reaped = new LongAdder();
    final LongAdder released = new LongAdder();
    final LongAdder deadlinesFired = new LongAdder();
    final LongAdder scheduledStarts = new LongAdder();
    final LongAdder scheduleMisfires = new LongAdder();
    final LongAdder retentionDeleted = new LongAdder();
    final LongAdder signalsDelivered = new LongAdder();
    final LongAdder signalsDeduplicated = new LongAdder();
    final LongAdder signalsRefused = new LongAdder();
    final LongAdder cancelsApplied = new LongAdder();
    final LongAdder cancelsRepeated = new LongAdder();
    final LongAdder cancelsRefused = new LongAdder();
    final LongAdder zombiesDetected = new LongAdder();
    final LongAdder instancesSuspended = new LongAdder();
    final LongAdder componentFailures = new LongAdder();
    final AtomicReference<@Nullable Instant> reaperLastRun = new AtomicReference<>();

    /** Rows claimed by picks. */
    public long picked() {
        return picked.sum();
    }

    /** Pick statements that claimed at least one row; {@code picked() / picks()} is the average pick size. */
    public long picks() {
        return picks.sum();
    }

    /**
     * Transactions (or single statements) that wrote outcomes; {@code outcomesCommitted() / outcomeFlushes()} is
     * roughly how many outcomes share a commit.
     */
    public long outcomeFlushes() {
        return outcomeFlushes.sum();
    }

    /** Steps that ran to an outcome (applied, fenced, abandoned or discarded). */
    public long stepsFinished() {
        return stepsFinished.sum();
    }

    public long outcomesCommitted() {
        return outcomesCommitted.sum();
    }

    /** Outcomes not written because the claim's lease was lost: the fence at work. */
    public long outcomesFenced() {
        return outcomesFenced.sum();
    }

    /** Outcomes given up on while the database was unreachable; their rows are left to the reaper. */
    public long outcomesAbandoned() {
        return outcomesAbandoned.sum();
    }

    /** Outcomes not written because the row was released at shutdown or the step died of an Error. */
    public long outcomesDiscarded() {
        return outcomesDiscarded.sum();
    }

    /** Running steps whose lease the heartbeat found lost. */
    public long leasesLost() {
        return leasesLost.sum();
    }

    /** Expired claims this node's reaper returned to runnable (claims of earlier starts included). */
    public long reaped() {
        return reaped.sum();
    }

    /** Await deadlines this node's sweep fired (parked instances returned to runnable to re-run timed out). */
    public long deadlinesFired() {
        return deadlinesFired.sum();
    }

    /** Instances this node started for the ticks of recurring schedules. */
    public long scheduledStarts() {
        return scheduledStarts.sum();
    }

    /**
     * Times this node found a schedule's ticks missed (found later than {@code scheduleMisfireThreshold}) and dealt
     * with them by the schedule's miss policy.
     */
    public long scheduleMisfires() {
        return scheduleMisfires.sum();
    }

    /** Ended instances this node's retention sweep deleted. */
    public long retentionDeleted() {
        return retentionDeleted.sum();
    }

    /** Claims this node released at shutdown. */
    public long released() {
        return released.sum();
    }

    public long signalsDelivered() {
        return signalsDelivered.sum();
    }

    public long signalsDeduplicated() {
        return signalsDeduplicated.sum();
    }

    public long signalsRefused() {
        return signalsRefused.sum();
    }

    /** Cancels made through this node that ended an instance. */
    public long cancelsApplied() {
        return cancelsApplied.sum();
    }

    /** Cancels made through this node of an instance already cancelled: nothing was written. */
    public long cancelsRepeated() {
        return cancelsRepeated.sum();
    }

    /** Cancels made through this node that were refused: no such instance or key holder, or it was done or failed. */
    public long cancelsRefused() {
        return cancelsRefused.sum();
    }

    /** Steps that did not end within the grace period after being interrupted, since start. */
    public long zombiesDetected() {
        return zombiesDetected.sum();
    }

    /** Failures of background components (each was retried). */
    public long componentFailures() {
        return componentFailures.sum();
    }

    /**
     * Instances this node suspended because their step could not run without losing stored data
     * (docs/DESIGN.md, "Suspension").
     */
    public long instancesSuspended() {
        return instancesSuspended.sum();
    }

    /** When the reaper last completed a run on this node. */
    public @Nullable Instant reaperLastRun() {
        return reaperLastRun.get();
    }
}
