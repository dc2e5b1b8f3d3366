package dev.durable.runtime.queue;

import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The claims a local start makes on the rows it inserts (docs/DESIGN.md, "Local starts"): before the insert, the owner
 * of the row's queue on this node promises it a claim when the row would start here at once; the insert claims the row
 * when nothing stands before it in its queue; once the start commits, the claimed rows join their owners as picked
 * rows do. Promises not used, and those of a start that rolled back, are taken back.
 */
public final class StartClaims {

    private final QueueOwners owners;

    public StartClaims(QueueOwners owners) {
        this.owners = owners;
    }

    /**
     * Promises claims for the rows that may start here at once: due now, without a partition key (whose claim another
     * node's row of the key may hold), on a queue this node works. Which rows got one.
     */
    public boolean[] reserve(List<NewInstance> rows) {
        boolean[] reserved = new boolean[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            NewInstance row = rows.get(i);
            QueueOwner owner = owners.get(row.queue());
            reserved[i] = owner != null && row.delayMillis() == 0 && row.partitionKey() == null
                    && owner.promise(row.machine(), row.version());
        }
        return reserved;
    }

    /** Takes back the promises of {@code reserved} rows that did not claim theirs. */
    public void unreserve(List<NewInstance> rows, boolean[] reserved, List<@Nullable ClaimedStep> claimed) {
        for (int i = 0; i < rows.size(); i++) {
            if (reserved[i] && claimed.get(i) == null) {
                owner(rows.get(i).queue()).unpromise();
            }
        }
    }

    /** Takes back every promise of {@code reserved} rows: the start failed, or rolled back. */
    public void unreserveAll(List<NewInstance> rows, boolean[] reserved) {
        for (int i = 0; i < rows.size(); i++) {
            if (reserved[i]) {
                owner(rows.get(i).queue()).unpromise();
            }
        }
    }

    /**
     * The start committed: its claimed rows join their queues' owners as picked rows do. An owner whose node is
     * stopping hands them back at once, as it does its waiting rows.
     */
    public void committed(List<@Nullable ClaimedStep> claimed) {
        Map<String, List<ClaimedStep>> byQueue = new LinkedHashMap<>();
        for (ClaimedStep step : claimed) {
            if (step != null) {
                byQueue.computeIfAbsent(step.queue(), queue -> new ArrayList<>(1)).add(step);
            }
        }
        byQueue.forEach((queue, rows) -> owner(queue).claimedAtStart(rows));
    }

    private QueueOwner owner(String queue) {
        QueueOwner owner = owners.get(queue);
        if (owner == null) {
            throw new IllegalStateException("a start was promised a claim on queue '" + queue
                    + "', which this node does not work");
        }
        return owner;
    }
}
