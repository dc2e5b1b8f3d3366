package dev.durable.runtime.node;

import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.InFlightSteps;
import dev.durable.runtime.queue.RunningStep;
import dev.durable.runtime.queue.StepExecutor;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's claims alive: every {@code heartbeatInterval}, one statement extends the leases of all running
 * steps. A step whose lease turns out to be gone (it was reaped, and maybe runs elsewhere now, or its instance was
 * cancelled) is interrupted: its outcome would be fenced off anyway.
 */
public final class Heartbeat {

    public static final String NAME = "durable-heartbeat";

    private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

    private final ClaimRepository claims;
    private final InFlightSteps inFlight;
    private final StepExecutor executor;
    private final EngineEvents events;
    private final Duration lease;
    private final Duration interval;

    public Heartbeat(ClaimRepository claims, InFlightSteps inFlight, StepExecutor executor, EngineEvents events,
            EngineSettings settings) {
        this.claims = claims;
        this.inFlight = inFlight;
        this.executor = executor;
        this.events = events;
        this.lease = settings.leaseTtl();
        this.interval = settings.heartbeatInterval();
    }

    /** One beat; returns the pause until the next. */
    public Duration beat() {
        List<Claim> lost = claims.heartbeat(inFlight.heldClaims(), lease);
        for (Claim claim : lost) {
            RunningStep running = inFlight.get(claim);
            // Only a step still in user code, or waiting to start, is affected: one already writing learns its fate
            // from the fence.
            if (running != null && (running.phase() == RunningStep.Phase.RUNNING
                    || running.phase() == RunningStep.Phase.WAITING)) {
                log.warn("Lease of {} was lost (its instance was cancelled, or it was reaped after a missed "
                        + "heartbeat); interrupting it, its outcome will be discarded", running);
                events.leaseLost(claim.id());
                executor.interrupt(running, RunningStep.InterruptReason.LEASE_LOST);
            }
        }
        return interval;
    }
}
