package dev.durable.runtime.support;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The counters a node keeps about itself, which the public {@code EngineStats} reads: updated only through
 * {@link EngineEvents}. Internal: a class of the engine, not of the API.
 */
public final class EngineCounters {

    public final LongAdder picked = new LongAdder();
    public final LongAdder picks = new LongAdder();
    public final LongAdder outcomeFlushes = new LongAdder();
    public final LongAdder stepsFinished = new LongAdder();
    public final LongAdder outcomesCommitted = new LongAdder();
    public final LongAdder outcomesFenced = new LongAdder();
    public final LongAdder outcomesAbandoned = new LongAdder();
    public final LongAdder outcomesDiscarded = new LongAdder();
    public final LongAdder leasesLost = new LongAdder();
    public final LongAdder reaped = new LongAdder();
    public final LongAdder released = new LongAdder();
    public final LongAdder deadlinesFired = new LongAdder();
    public final LongAdder scheduledStarts = new LongAdder();
    public final LongAdder scheduleMisfires = new LongAdder();
    public final LongAdder retentionDeleted = new LongAdder();
    public final LongAdder signalsDelivered = new LongAdder();
    public final LongAdder signalsDeduplicated = new LongAdder();
    public final LongAdder signalsRefused = new LongAdder();
    public final LongAdder cancelsApplied = new LongAdder();
    public final LongAdder cancelsRepeated = new LongAdder();
    public final LongAdder cancelsRefused = new LongAdder();
    public final LongAdder zombiesDetected = new LongAdder();
    public final LongAdder instancesSuspended = new LongAdder();
    public final LongAdder componentFailures = new LongAdder();
    public final AtomicReference<@Nullable Instant> reaperLastRun = new AtomicReference<>();
}
