package dev.durable.runtime.control;

import dev.durable.InstanceStatus;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes ended instances, with their signals, once they are older than their status's retention
 * ({@code retention.done}, {@code retention.failed}, {@code retention.cancelled}; unset or zero keeps them). Every
 * node sweeps; the batches of concurrent sweeps are disjoint (SKIP LOCKED), so no node deletes what another already
 * took and none needs to lead. Each batch is a statement of its own, a short transaction that locks only ended rows (docs/DESIGN.md,
 * "Retention").
 */
public final class Retention {

    public static final String NAME = "durable-retention";

    /**
     * After a full batch the sweep pauses this many times as long as the batch took, so that a backlog is deleted in
     * the background with at most a fifth of the sweep's time spent deleting, and the steps running meanwhile keep
     * most of the database (docs/DESIGN.md, "Retention").
     */
    static final int PAUSE_PER_BATCH_TIME = 4;

    private static final Logger log = LoggerFactory.getLogger(Retention.class);

    private final RetentionRepository repository;
    private final EngineEvents events;
    private final int batchSize;
    private final Duration interval;
    private final Map<InstanceStatus, Duration> keep = new LinkedHashMap<>();

    /**
     * @param done      how long a done instance is kept ({@code retention.done}); {@code null} or zero: for ever
     * @param failed    the same for a failed one ({@code retention.failed})
     * @param cancelled the same for a cancelled one ({@code retention.cancelled})
     * @param batchSize how many instances of a status one statement deletes
     * @param interval  the pause between sweeps once nothing more is due
     */
    public Retention(RetentionRepository repository, EngineEvents events, @Nullable Duration done,
            @Nullable Duration failed, @Nullable Duration cancelled, int batchSize, Duration interval) {
        this.repository = repository;
        this.events = events;
        this.batchSize = batchSize;
        this.interval = interval;
        put(InstanceStatus.DONE, done);
        put(InstanceStatus.FAILED, failed);
        put(InstanceStatus.CANCELLED, cancelled);
    }

    private void put(InstanceStatus status, @Nullable Duration age) {
        if (age != null && !age.isZero()) {
            keep.put(status, age);
        }
    }

    /**
     * The longest retention, when every ended status has one: the history of an instance ended that long ago is
     * deleted, so the history rollup's counts of older minutes are too ({@link HistoryRollup}); else null, for ever.
     */
    public @Nullable Duration longestKept() {
        return keep.size() == 3 ? Collections.max(keep.values()) : null;
    }

    /** Whether any status has a retention; without one the sweep never runs. */
    public boolean enabled() {
        return !keep.isEmpty();
    }

    /**
     * One sweep: a batch of each status that has a retention. Returns the pause before the next: while batches come
     * back full, {@link #PAUSE_PER_BATCH_TIME} times as long as this sweep took; then the retention interval.
     */
    public Duration sweep() {
        int batch = batchSize;
        boolean more = false;
        long begin = System.nanoTime();
        for (Map.Entry<InstanceStatus, Duration> entry : keep.entrySet()) {
            int deleted = repository.deleteExpired(entry.getKey(), entry.getValue(), batch);
            events.retentionDeleted(deleted);
            more |= deleted == batch;
            if (deleted > 0) {
                log.debug("Deleted {} {} instances older than {}", deleted, entry.getKey().label(), entry.getValue());
            }
        }
        return more ? Duration.ofNanos((System.nanoTime() - begin) * PAUSE_PER_BATCH_TIME)
                : interval;
    }
}
