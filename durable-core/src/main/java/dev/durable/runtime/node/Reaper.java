package dev.durable.runtime.node;

import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Returns crashed work to runnable: every {@code reaperInterval}, claims whose lease expired go back with
 * {@code attempt + 1} (their step runs again from scratch; the error handler is not involved). Any node may reap;
 * concurrent reapers skip each other's rows.
 *
 * <p>It also releases the claims of earlier starts of this node's name once their heartbeat has been silent for two
 * heartbeat periods, so a node that restarts does not strand its own work for a whole lease (docs/DESIGN.md,
 * pitfall P9). Right after a start those claims may still look fresh, so the reaper runs once more when they no
 * longer can.
 */
public final class Reaper {

    public static final String NAME = "durable-reaper";

    private static final Logger log = LoggerFactory.getLogger(Reaper.class);

    private final ClaimRepository claims;
    private final StatementPlanning planning;
    private final EngineEvents events;
    private final Consumer<Set<String>> wakeQueues;
    private final EngineSettings settings;
    private final String nodeId;
    private final String ownerPrefix;
    private final Duration staleAfter;
    private long earlierStartsSettledAtNanos;

    public Reaper(ClaimRepository claims, StatementPlanning planning, EngineEvents events,
            Consumer<Set<String>> wakeQueues, EngineSettings settings, String nodeId, String ownerPrefix) {
        this.claims = claims;
        this.planning = planning;
        this.events = events;
        this.wakeQueues = wakeQueues;
        this.settings = settings;
        this.nodeId = nodeId;
        this.ownerPrefix = ownerPrefix;
        this.staleAfter = settings.heartbeatInterval().multipliedBy(2);
    }

    /** Marks the start of this node: claims of earlier starts will all look stale {@code staleAfter} from now. */
    public void nodeStarted() {
        earlierStartsSettledAtNanos = System.nanoTime() + staleAfter.toNanos() + Duration.ofMillis(200).toNanos();
    }

    /** One run; returns the pause until the next. */
    public Duration reap() {
        planning.refresh();
        int total = 0;
        Set<String> queues = new HashSet<>();
        Map<Long, String> released = claims.releaseEarlierStarts(ownerPrefix, nodeId, settings.leaseTtl(),
                staleAfter);
        if (!released.isEmpty()) {
            log.info("Released {} claims of earlier starts of node {}: {}", released.size(), settings.nodeName(),
                    released.keySet());
            total += released.size();
            queues.addAll(released.values());
        }
        Map<Long, String> reaped;
        do {
            reaped = claims.reapExpired(settings.reaperBatchSize());
            if (!reaped.isEmpty()) {
                log.info("Reaped {} expired claims: {}", reaped.size(), reaped.keySet());
            }
            total += reaped.size();
            queues.addAll(reaped.values());
        } while (reaped.size() == settings.reaperBatchSize());
        events.reaped(total);
        if (!queues.isEmpty()) {
            wakeQueues.accept(queues);
        }
        long untilSettled = earlierStartsSettledAtNanos - System.nanoTime();
        Duration interval = settings.reaperInterval();
        return untilSettled > 0 && untilSettled < interval.toNanos() ? Duration.ofNanos(untilSettled) : interval;
    }
}
