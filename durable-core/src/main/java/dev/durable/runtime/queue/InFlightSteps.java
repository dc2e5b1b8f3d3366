package dev.durable.runtime.queue;

import dev.durable.runtime.step.Claim;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The claims this node holds and the steps it runs on them, by claim: what the heartbeat extends and what shutdown waits for. Keyed by claim,
 * not by instance id, because a node can run two claims of one instance at once: a step whose lease was lost (the
 * row was reaped) may still run when the same node picks the row again.
 */
public final class InFlightSteps {

    private final Map<Claim, RunningStep> steps = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    void add(RunningStep step) {
        steps.put(step.claim(), step);
    }

    void remove(RunningStep step) {
        steps.remove(step.claim(), step);
        if (steps.isEmpty()) {
            // Only the shutdown waits, and only for none to be left: no lock and signal for every step.
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    public @Nullable RunningStep get(Claim claim) {
        return steps.get(claim);
    }

    public List<RunningStep> all() {
        return List.copyOf(steps.values());
    }

    /** The claims whose leases this node must keep alive: steps waiting for a slot, running or committing. */
    public List<Claim> heldClaims() {
        return steps.values().stream()
                .filter(step -> step.phase() == RunningStep.Phase.WAITING || step.phase() == RunningStep.Phase.RUNNING
                        || step.phase() == RunningStep.Phase.COMMITTING)
                .map(RunningStep::claim)
                .toList();
    }

    public int size() {
        return steps.size();
    }

    public int zombies() {
        return (int) steps.values().stream().filter(RunningStep::isZombie).count();
    }

    /** Waits until no step is in flight; false if some still are after {@code timeout}. */
    public boolean awaitEmpty(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (!steps.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                // awaitNanos answers what is left of this wait, not of the timeout: keep the deadline apart.
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return steps.isEmpty();
        } finally {
            lock.unlock();
        }
    }
}
