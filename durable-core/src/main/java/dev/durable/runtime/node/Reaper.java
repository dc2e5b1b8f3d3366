package dev.durable.runtime.node;

import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
    private final QueueOwners owners;
    private final Settings settings;
    private final String nodeId;
    private final String ownerPrefix;
    private final Duration staleAfter;
    private long earlierStartsSettledAtNanos;

    /**
     * What a reaper needs of the node's settings.
     *
     * @param leaseTtl          how long a claim lives unrenewed ({@code lease-ttl})
     * @param heartbeatInterval how often a live node renews its claims ({@code heartbeat-interval})
     * @param interval          the pause between runs ({@code reaper-interval})
     * @param batchSize         how many expired claims one statement returns ({@code reaper-batch-size})
     */
    public record Settings(Duration leaseTtl, Duration heartbeatInterval, Duration interval, int batchSize) {
    }

    /**
     * @param owners      whose pollers look at once at the queues of the rows a run returned to runnable
     * @param ownerPrefix the node's name and a colon: the owner ids of this node's earlier starts begin with it
     */
    public Reaper(ClaimRepository claims, StatementPlanning planning, EngineEvents events, QueueOwners owners,
            Settings settings, String nodeId, String ownerPrefix) {
        this.claims = claims;
        this.planning = planning;
        this.events = events;
        this.owners = owners;
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
            log.info("Released {} claims of earlier starts of node {}: {}", released.size(),
                    ownerPrefix.substring(0, ownerPrefix.length() - 1), released.keySet());
            total += released.size();
            queues.addAll(released.values());
        }
        Map<Long, String> reaped;
        do {
            reaped = claims.reapExpired(settings.batchSize());
            if (!reaped.isEmpty()) {
                log.info("Reaped {} expired claims: {}", reaped.size(), reaped.keySet());
            }
            total += reaped.size();
            queues.addAll(reaped.values());
        } while (reaped.size() == settings.batchSize());
        events.reaped(total);
        if (!queues.isEmpty()) {
            owners.wake(queues);
        }
        long untilSettled = earlierStartsSettledAtNanos - System.nanoTime();
        Duration interval = settings.interval();
        return untilSettled > 0 && untilSettled < interval.toNanos() ? Duration.ofNanos(untilSettled) : interval;
    }
}
