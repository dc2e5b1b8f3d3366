package dev.durable.runtime;

import dev.durable.runtime.support.EngineCounters;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Counters the engine keeps about itself since it was built; read by tests, the actuator endpoint and metrics.
 */
public final class EngineStats {

    private final EngineCounters counters;

    /** Counters of their own, all zero: an engine reads those its parts update. */
    public EngineStats() {
        this(new EngineCounters());
    }

    /** The view of {@code counters}, which the engine's parts update through its {@code EngineEvents}. */
    EngineStats(EngineCounters counters) {
        this.counters = counters;
    }

    /** Rows claimed: by picks, and by local starts that claim their own rows (docs/DESIGN.md, "Local starts"). */
    public long picked() {
        return counters.picked.sum();
    }

    /**
     * Pick statements that claimed at least one row, and local starts that claimed theirs; {@code picked() / picks()}
     * is the average pick size.
     */
    public long picks() {
        return counters.picks.sum();
    }

    /**
     * Transactions (or single statements) that wrote outcomes; {@code outcomesCommitted() / outcomeFlushes()} is
     * roughly how many outcomes share a commit.
     */
    public long outcomeFlushes() {
        return counters.outcomeFlushes.sum();
    }

    /** Steps that ran to an outcome (applied, fenced, abandoned or discarded). */
    public long stepsFinished() {
        return counters.stepsFinished.sum();
    }

    public long outcomesCommitted() {
        return counters.outcomesCommitted.sum();
    }

    /** Outcomes not written because the claim's lease was lost: the fence at work. */
    public long outcomesFenced() {
        return counters.outcomesFenced.sum();
    }

    /** Outcomes given up on while the database was unreachable; their rows are left to the reaper. */
    public long outcomesAbandoned() {
        return counters.outcomesAbandoned.sum();
    }

    /** Outcomes not written because the row was released at shutdown or the step died of an Error. */
    public long outcomesDiscarded() {
        return counters.outcomesDiscarded.sum();
    }

    /** Running steps whose lease the heartbeat found lost. */
    public long leasesLost() {
        return counters.leasesLost.sum();
    }

    /** Expired claims this node's reaper returned to runnable (claims of earlier starts included). */
    public long reaped() {
        return counters.reaped.sum();
    }

    /** Await deadlines this node's sweep fired (parked instances returned to runnable to re-run timed out). */
    public long deadlinesFired() {
        return counters.deadlinesFired.sum();
    }

    /** Instances this node started for the ticks of recurring schedules. */
    public long scheduledStarts() {
        return counters.scheduledStarts.sum();
    }

    /**
     * Times this node found a schedule's ticks missed (found later than {@code scheduleMisfireThreshold}) and dealt
     * with them by the schedule's miss policy.
     */
    public long scheduleMisfires() {
        return counters.scheduleMisfires.sum();
    }

    /** Ended instances this node's retention sweep deleted. */
    public long retentionDeleted() {
        return counters.retentionDeleted.sum();
    }

    /** Claims this node released at shutdown. */
    public long released() {
        return counters.released.sum();
    }

    public long signalsDelivered() {
        return counters.signalsDelivered.sum();
    }

    public long signalsDeduplicated() {
        return counters.signalsDeduplicated.sum();
    }

    public long signalsRefused() {
        return counters.signalsRefused.sum();
    }

    /** Cancels made through this node that ended an instance. */
    public long cancelsApplied() {
        return counters.cancelsApplied.sum();
    }

    /** Cancels made through this node of an instance already cancelled: nothing was written. */
    public long cancelsRepeated() {
        return counters.cancelsRepeated.sum();
    }

    /** Cancels made through this node that were refused: no such instance or key holder, or it was done or failed. */
    public long cancelsRefused() {
        return counters.cancelsRefused.sum();
    }

    /** Steps that did not end within the grace period after being interrupted, since start. */
    public long zombiesDetected() {
        return counters.zombiesDetected.sum();
    }

    /** Failures of background components (each was retried). */
    public long componentFailures() {
        return counters.componentFailures.sum();
    }

    /**
     * Instances this node suspended because their step could not run without losing stored data
     * (docs/DESIGN.md, "Suspension").
     */
    public long instancesSuspended() {
        return counters.instancesSuspended.sum();
    }

    /** When the reaper last completed a run on this node. */
    public @Nullable Instant reaperLastRun() {
        return counters.reaperLastRun.get();
    }
}
