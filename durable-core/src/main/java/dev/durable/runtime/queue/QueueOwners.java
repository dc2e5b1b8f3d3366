package dev.durable.runtime.queue;

import dev.durable.runtime.step.Claim;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owners of this node's queues, and the node's views of its claims, which ask them (docs/DESIGN.md, "The life of a
 * step"): the claims the heartbeat keeps alive and what it found gone, the cancels this node hears of, how many claims
 * and zombies the node holds, how many steps run user code (for the committer), and the wait of a stopping node for
 * its last claim. No count is kept here: each owner counts its own.
 */
public final class QueueOwners implements Committer.Node {

    private static final Logger log = LoggerFactory.getLogger(QueueOwners.class);

    private final Map<String, QueueOwner> owners = new LinkedHashMap<>();
    /** The same owners, for the committer's count on every hand-over: no iterator to allocate. */
    private QueueOwner[] each = new QueueOwner[0];
    private final EngineEvents events;

    public QueueOwners(EngineEvents events) {
        this.events = events;
    }

    /** Adds the owner of a queue; only while the engine is built, before any thread runs. */
    public void add(QueueOwner owner) {
        owners.put(owner.name(), owner);
        each = owners.values().toArray(QueueOwner[]::new);
    }

    /** The owner of {@code queue}, or null when this node does not work it. */
    public @Nullable QueueOwner get(String queue) {
        return owners.get(queue);
    }

    public Map<String, QueueOwner> all() {
        return Collections.unmodifiableMap(owners);
    }

    /** Local work arrived on {@code queue}: its poller looks now (nothing for a queue this node does not work). */
    public void wake(String queue) {
        QueueOwner owner = owners.get(queue);
        if (owner != null) {
            owner.wake();
        }
    }

    /** Work became runnable on {@code queues}: the pollers of those this node works look now. */
    public void wake(Collection<String> queues) {
        queues.forEach(this::wake);
    }

    public void wakeAll() {
        owners.values().forEach(QueueOwner::wake);
    }

    @Override
    public void newWork(String queue) {
        wake(queue);
    }

    @Override
    public int stepsInUserCode() {
        int running = 0;
        for (QueueOwner owner : each) {
            running += owner.inUserCode();
        }
        return running;
    }

    /** The claims whose leases the heartbeat extends: waiting for a slot, being checked, running or committing. */
    public List<Claim> heldClaims() {
        List<Claim> held = new ArrayList<>();
        owners.values().forEach(owner -> owner.addHeldClaims(held));
        return held;
    }

    /**
     * The heartbeat found {@code claim} gone (reaped, or its instance {@code cancelled} elsewhere): a step in user
     * code is interrupted, its outcome would be fenced off anyway; one that has not started never does. Only a lease
     * lost otherwise than by a cancel is a WARN: the end of a cancel is expected, and its caller logged it.
     */
    public void claimLost(Claim claim, boolean cancelled) {
        for (QueueOwner owner : owners.values()) {
            if (!owner.claimLost(claim)) {
                continue;
            }
            if (cancelled) {
                log.debug("Instance {} was cancelled on another node; its step is interrupted or does not start, its"
                        + " outcome would be discarded", claim.id());
            } else {
                log.warn("Lease of the claim on instance {} was lost (it was reaped after a missed heartbeat); its"
                        + " step is interrupted or does not start, its outcome would be discarded", claim.id());
            }
            events.leaseLost(claim.id());
        }
    }

    /**
     * Instance {@code id} was cancelled: no claim of it on this node starts another step, and a step of it in user
     * code is interrupted (docs/DESIGN.md, "Cancel"). The one entry point, whoever heard of the cancel.
     */
    public void cancelled(long id) {
        owners.values().forEach(owner -> owner.cancelled(id));
    }

    /** Rows this node holds, all queues (waiting, running, committing or being handed back), and claims promised. */
    public int claims() {
        int claims = 0;
        for (QueueOwner owner : owners.values()) {
            claims += owner.claims();
        }
        return claims;
    }

    public int zombies() {
        int zombies = 0;
        for (QueueOwner owner : owners.values()) {
            zombies += owner.zombies();
        }
        return zombies;
    }

    public void start() {
        owners.values().forEach(QueueOwner::start);
    }

    public void stopPolling(Duration timeout) {
        owners.values().forEach(owner -> owner.stopPolling(timeout));
    }

    /** The node stops: no more picks; claimed rows that have not started are handed back at once. */
    public void drain() {
        owners.values().forEach(QueueOwner::drain);
    }

    /** The grace period is over: what still runs is handed back and interrupted. */
    public void releaseUnfinished() {
        owners.values().forEach(QueueOwner::releaseUnfinished);
    }

    /** Waits until no queue holds a claim; false if some still do after {@code timeout}. */
    public boolean awaitNoClaims(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (QueueOwner owner : owners.values()) {
            if (!owner.awaitNoClaims(deadline)) {
                return false;
            }
        }
        return true;
    }
}
