package dev.durable.runtime;

import dev.durable.InstanceStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes ended instances, with their signals, once they are older than their status's retention
 * ({@code retention.done}, {@code retention.failed}; unset or zero keeps them). Every node sweeps; the batches of
 * concurrent sweeps are disjoint (SKIP LOCKED), so no node deletes what another already took and none needs to
 * lead. Each batch is a statement of its own, a short transaction that locks only ended rows (docs/DESIGN.md,
 * "Retention").
 */
final class Retention {

    static final String NAME = "durable-retention";

    /** Batches per status per sweep before the sweep yields (and comes back at once): bounds one sweep's time. */
    private static final int MAX_BATCHES_PER_SWEEP = 100;

    private static final Logger log = LoggerFactory.getLogger(Retention.class);

    private final RetentionRepository repository;
    private final EngineEvents events;
    private final EngineSettings settings;
    private final Map<InstanceStatus, Duration> keep = new LinkedHashMap<>();

    Retention(RetentionRepository repository, EngineEvents events, EngineSettings settings) {
        this.repository = repository;
        this.events = events;
        this.settings = settings;
        put(InstanceStatus.DONE, settings.retentionDone());
        put(InstanceStatus.FAILED, settings.retentionFailed());
    }

    private void put(InstanceStatus status, @Nullable Duration age) {
        if (age != null && !age.isZero()) {
            keep.put(status, age);
        }
    }

    /** Whether any status has a retention; without one the sweep never runs. */
    boolean enabled() {
        return !keep.isEmpty();
    }

    /** One sweep: deletes every expired instance (up to a bound); returns the pause before the next. */
    Duration sweep() {
        int batch = settings.retentionBatchSize();
        boolean more = false;
        for (Map.Entry<InstanceStatus, Duration> entry : keep.entrySet()) {
            long deleted = 0;
            int n;
            int batches = 0;
            do {
                n = repository.deleteExpired(entry.getKey(), entry.getValue(), batch);
                deleted += n;
                events.retentionDeleted(n);
            } while (n == batch && ++batches < MAX_BATCHES_PER_SWEEP);
            more |= n == batch;
            if (deleted > 0) {
                log.debug("Deleted {} {} instances older than {}", deleted, entry.getKey().label(), entry.getValue());
            }
        }
        return more ? Duration.ZERO : settings.retentionInterval();
    }
}
