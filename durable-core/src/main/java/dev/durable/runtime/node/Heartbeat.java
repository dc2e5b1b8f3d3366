package dev.durable.runtime.node;

import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.FamilyRepository;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.step.Claim;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Keeps this node's claims alive: every {@code heartbeatInterval}, one statement extends the leases of all the claims
 * the queues' owners hold (docs/DESIGN.md, "Leases, heartbeat and reaper"). A claim whose lease turns out to be gone
 * (it was reaped, and maybe runs elsewhere now, or its instance was cancelled) is reported to its owner, which
 * interrupts its step, or keeps it from starting: its outcome would be fenced off anyway.
 */
public final class Heartbeat {

    public static final String NAME = "durable-heartbeat";

    private final ClaimRepository claims;
    private final FamilyRepository family;
    private final QueueOwners owners;
    private final Duration lease;
    private final Duration interval;

    /**
     * @param lease    how long each beat extends a lease
     * @param interval how long between beats
     */
    public Heartbeat(ClaimRepository claims, FamilyRepository family, QueueOwners owners, Duration lease,
            Duration interval) {
        this.claims = claims;
        this.family = family;
        this.owners = owners;
        this.lease = lease;
        this.interval = interval;
    }

    /** One beat; returns the pause until the next. */
    public Duration beat() {
        List<Claim> gone = claims.heartbeat(owners.heldClaims(), lease);
        if (!gone.isEmpty()) {
            // Those whose instance was cancelled (on another node) are the expected end of a cancel, the others were
            // reaped: a lost lease, which the owners warn of.
            Set<Long> cancelled = family.cancelledAmong(gone.stream().map(Claim::id).toList());
            for (Claim lost : gone) {
                owners.claimLost(lost, cancelled.contains(lost.id()));
            }
        }
        return interval;
    }
}
