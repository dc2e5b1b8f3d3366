package dev.durable.runtime.time;

import dev.durable.runtime.queue.QueueOwner;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires await deadlines: parked instances whose deadline has passed go back to runnable, so their step re-runs and
 * finds no awaited signal ({@code StepContext.timedOut()}). Every node sweeps, for every queue; concurrent sweeps skip
 * each other's rows, and a node that does not work a row's queue only flips its status, which the pollers of that
 * queue find through the probe. After a sweep the loop sleeps until the next deadline in the table; a deadline set
 * meanwhile (by any node) that falls due sooner is found by the node's {@code WorkProbe}, which wakes the sweep, so a
 * deadline fires at most about one {@code poll-interval} late, and usually much less (docs/DESIGN.md, "Timers and
 * deadlines").
 *
 * <p>A signal and a deadline racing for one instance both take the row lock: a delivery that holds it makes the sweep
 * skip the row (the delivery wakes it, or the next sweep fires it); a sweep that holds it makes the delivery wait and
 * then find the row runnable, so the signal is stored and the re-run step finds it in its inbox (and did not time
 * out, if the signal was in before the pick).
 */
public final class AwaitDeadlines {

    public static final String NAME = "durable-deadlines";

    private static final Logger log = LoggerFactory.getLogger(AwaitDeadlines.class);

    private final DeadlineRepository deadlines;
    private final EngineEvents events;
    private final QueueOwners owners;
    private final int batchSize;

    /**
     * @param owners    whose pollers look at once at the queues of the instances a sweep woke
     * @param batchSize how many deadlines one statement fires ({@code reaper-batch-size})
     */
    public AwaitDeadlines(DeadlineRepository deadlines, EngineEvents events, QueueOwners owners, int batchSize) {
        this.deadlines = deadlines;
        this.events = events;
        this.owners = owners;
        this.batchSize = batchSize;
    }

    /** One sweep: fires every due deadline and wakes this node's pollers of their queues; returns the next pause. */
    public Duration sweep() {
        int batch = batchSize;
        Map<Long, String> fired;
        do {
            fired = deadlines.fireDue(batch);
            if (!fired.isEmpty()) {
                log.debug("Fired {} await deadlines: {}", fired.size(), fired.keySet());
                events.deadlinesFired(fired.size());
                owners.wake(Set.copyOf(fired.values()));
            }
        } while (fired.size() == batch);
        return BackgroundLoop.pauseUntil(deadlines.millisUntilNext(), QueueOwner.LONGEST_PAUSE);
    }
}
