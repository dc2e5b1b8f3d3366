package dev.durable.runtime.node;

import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.queue.QueueOwner;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How a node finds the work other nodes made: every {@code poll-interval} while it has seen work in the last
 * {@link EngineSettings#ACTIVE_WINDOW} (picked rows, or found some), every {@code idle-poll-interval} otherwise, one
 * statement ({@link ProbeRepository})
 * says which of its queues has a runnable row due at its head, and whether an await deadline or a schedule tick of its
 * machines is due; once a second, a second statement looks behind the heads, at every priority. The probe wakes the
 * queue's poller, the deadline sweep or the schedule sweep accordingly, and nothing else runs on an idle node
 * (docs/DESIGN.md, "Finding work"). Local work never waits for it: a start, a signal or a commit
 * on this node wakes the poller it concerns at once.
 */
public final class WorkProbe {

    public static final String NAME = "durable-probe";
    /** How often the probe also looks behind the heads of the queues, at every priority. */
    public static final Duration EVERY_PRIORITY_INTERVAL = Duration.ofSeconds(1);

    private final ProbeRepository probes;
    private final Map<String, QueueOwner> pollers;
    private final List<String> queues;
    private final List<String> machines;
    private final Runnable deadlinesDue;
    private final Runnable schedulesDue;
    private final Duration interval;
    private final Duration idleInterval;
    private final LongSupplier picked;
    private long pickedBefore;
    /** When (System.nanoTime) this node last saw work: a pick that claimed rows, or the probe finding some. */
    private long workSeenAt = System.nanoTime() - EngineSettings.ACTIVE_WINDOW.toNanos();
    /** When (System.nanoTime) the probe last looked at every priority. */
    private long everyPriorityAt = System.nanoTime();

    /**
     * @param pollers      the owners of the queues this node works (a queue without slots or machines is left out)
     * @param machines     the machines this node runs, whose schedules it fires
     * @param deadlinesDue wakes the deadline sweep
     * @param schedulesDue wakes the schedule sweep
     * @param picked       how many rows this node has picked so far: while that grows, the node is busy
     * @param interval     the pause while busy ({@code poll-interval})
     * @param idleInterval the pause while idle ({@code idle-poll-interval})
     */
    public WorkProbe(ProbeRepository probes, Map<String, QueueOwner> pollers, List<String> machines,
            Runnable deadlinesDue, Runnable schedulesDue, LongSupplier picked, Duration interval,
            Duration idleInterval) {
        this.probes = probes;
        this.pollers = Map.copyOf(pollers);
        this.queues = List.copyOf(pollers.keySet());
        this.machines = List.copyOf(machines);
        this.deadlinesDue = deadlinesDue;
        this.schedulesDue = schedulesDue;
        this.picked = picked;
        this.pickedBefore = picked.getAsLong();
        this.interval = interval;
        this.idleInterval = idleInterval;
    }

    /** One look; returns the pause until the next. */
    public Duration probe() {
        ProbeRepository.Found found = probes.probe(queues, machines);
        boolean workFound = wakeQueues(found);
        if (found.deadline() != null && found.deadline() <= 0) {
            deadlinesDue.run();
        }
        if (found.schedule() != null && found.schedule() <= 0) {
            schedulesDue.run();
        }
        long now = System.nanoTime();
        if (now - everyPriorityAt >= EVERY_PRIORITY_INTERVAL.toNanos()) {
            everyPriorityAt = now;
            workFound |= wakeQueues(probes.probeEveryPriority(queues));
        }
        return busy(workFound, now) ? interval : idleInterval;
    }

    /** Whether the node has seen work lately (it picked rows, or the probe found some), so more is likely to come. */
    private boolean busy(boolean workFound, long now) {
        long pickedNow = picked.getAsLong();
        if (workFound || pickedNow != pickedBefore) {
            workSeenAt = now;
        }
        pickedBefore = pickedNow;
        return now - workSeenAt < EngineSettings.ACTIVE_WINDOW.toNanos();
    }

    /** Wakes the pollers of the queues with a due row; whether there was one. */
    private boolean wakeQueues(ProbeRepository.Found found) {
        boolean any = false;
        for (Map.Entry<String, QueueOwner> queue : pollers.entrySet()) {
            Long dueIn = found.queue(queue.getKey());
            if (dueIn != null && dueIn <= 0) {
                queue.getValue().workFound();
                any = true;
            }
        }
        return any;
    }
}
