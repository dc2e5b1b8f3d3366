package dev.durable.runtime.queue;

import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.support.EngineEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims a local start makes on the rows it inserts (docs/DESIGN.md, "Local starts"): before the
 * insert, a claim is promised by the row's queue on this node when the row would start here at once; the insert claims
 * the row when nothing stands before it in its queue; once the start commits, the claimed rows go to the executor as
 * picked rows do. Promises not used, and those of a start that rolled back, are taken back.
 */
public final class StartClaims {

    private static final Logger log = LoggerFactory.getLogger(StartClaims.class);

    private final Map<String, QueuePoller> queues;
    private final StepExecutor executor;
    private final ClaimRepository claims;
    private final EngineEvents events;

    public StartClaims(Map<String, QueuePoller> queues, StepExecutor executor, ClaimRepository claims, EngineEvents events) {
        this.queues = queues;
        this.executor = executor;
        this.claims = claims;
        this.events = events;
    }

    /**
     * Promises claims for the rows that may start here at once: due now, without a partition key (whose claim another
     * node's row of the key may hold), on a queue this node works. Which rows got one.
     */
    public boolean[] reserve(List<NewInstance> rows) {
        boolean[] reserved = new boolean[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            NewInstance row = rows.get(i);
            QueuePoller queue = queues.get(row.queue());
            reserved[i] = queue != null && row.delayMillis() == 0 && row.partitionKey() == null
                    && queue.reserveForStart(row.machine(), row.version());
        }
        return reserved;
    }

    /** Takes back the promises of {@code reserved} rows that did not claim theirs. */
    public void unreserve(List<NewInstance> rows, boolean[] reserved, List<@Nullable ClaimedStep> claimed) {
        for (int i = 0; i < rows.size(); i++) {
            if (reserved[i] && claimed.get(i) == null) {
                queues.get(rows.get(i).queue()).slots().unreserve();
            }
        }
    }

    /** Takes back every promise of {@code reserved} rows: the start failed, or rolled back. */
    public void unreserveAll(List<NewInstance> rows, boolean[] reserved) {
        for (int i = 0; i < rows.size(); i++) {
            if (reserved[i]) {
                queues.get(rows.get(i).queue()).slots().unreserve();
            }
        }
    }

    /**
     * The start committed: its claimed rows run here as picked rows do. A queue that stopped meanwhile (the node is
     * stopping) hands its rows back at once, as it does its waiting rows.
     */
    public void committed(List<@Nullable ClaimedStep> claimed) {
        List<Claim> handBack = new ArrayList<>();
        Map<String, Integer> accepted = new TreeMap<>();
        for (ClaimedStep step : claimed) {
            if (step == null) {
                continue;
            }
            QueuePoller queue = queues.get(step.queue());
            if (queue.isPolling()) {
                accepted.merge(step.queue(), 1, Integer::sum);
                executor.acceptAtStart(step, queue.slots());
            } else {
                handBack.add(step.claim());
                queue.slots().unreserve();
            }
        }
        // Claims like a pick's, and counted as such (EngineStats.picked, DurableListener.picked).
        accepted.forEach(events::picked);
        if (!handBack.isEmpty()) {
            try {
                claims.release(handBack);
            } catch (RuntimeException e) {
                log.warn("Could not hand back {} rows a start claimed while the node stopped; their leases will"
                        + " expire instead: {}", handBack.size(), e.toString());
            }
        }
    }
}
