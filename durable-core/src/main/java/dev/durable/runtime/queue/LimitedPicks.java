package dev.durable.runtime.queue;

import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.LimitStatus;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;

/**
 * The picks of one queue with cluster-wide limits, for its {@link QueueOwner} (docs/DESIGN.md, "Cluster-wide
 * limits"): each pick through {@link LimitRepository#pickLimited}, what the last one saw, how many the limits held back,
 * and how long the poller pauses after one they held back.
 */
final class LimitedPicks {

    private static final Logger log = LoggerFactory.getLogger(LimitedPicks.class);
    /** The longest pause of a poller whose last pick a limit held back. */
    static final Duration LONGEST_HELD_BACK_PAUSE = Duration.ofMillis(500);
    private static final int PARTITION_RACE_RETRIES = 3;

    private final String queue;
    private final ClusterLimits limits;
    private final LimitRepository repository;
    private final EngineEvents events;
    private final Duration heldBackPause;
    private final AtomicLong heldBack = new AtomicLong();
    private volatile @Nullable Long lastExecuting;
    private volatile @Nullable Double lastTokens;

    LimitedPicks(String queue, ClusterLimits limits, LimitRepository repository, EngineEvents events,
            Duration pollInterval) {
        this.queue = queue;
        this.limits = limits;
        this.repository = repository;
        this.events = events;
        this.heldBackPause = pollInterval.compareTo(LONGEST_HELD_BACK_PAUSE) < 0 ? pollInterval
                : LONGEST_HELD_BACK_PAUSE;
    }

    /** A pick of up to {@code limit} rows within the limits, retried as the owner's pick on partition races. */
    LimitRepository.LimitedPick pick(Map<String, List<Integer>> machines, int limit, String owner, Duration lease) {
        for (int attempt = 1; ; attempt++) {
            try {
                return repository.pickLimited(queue, machines, limit, owner, lease, limits);
            } catch (DuplicateKeyException e) {
                if (attempt >= PARTITION_RACE_RETRIES) {
                    log.debug("Pick of queue {} kept racing on partition keys; next poll retries", queue);
                    return new LimitRepository.LimitedPick(List.of(), limit, lastTokens, lastExecuting); // not held
                }
            }
        }
    }

    /**
     * How long the poller pauses after {@code pick}: null when no limit held it back; else until the bucket holds a
     * whole token (a rate), at most a poll interval and {@link #LONGEST_HELD_BACK_PAUSE}.
     */
    @Nullable Duration heldBackFor(LimitRepository.LimitedPick pick, int asked) {
        lastExecuting = pick.executing();
        lastTokens = pick.tokens() == null ? null : pick.tokens() - pick.rows().size();
        if (!pick.heldBack(asked)) {
            return null;
        }
        heldBack.incrementAndGet();
        events.heldBack(queue);
        Double tokens = lastTokens;
        ClusterLimits.Rate rate = limits.rate();
        Integer concurrency = limits.concurrency();
        if (rate != null && tokens != null && tokens < 1 && (pick.executing() == null || concurrency == null
                || pick.executing() + pick.rows().size() < concurrency)) {
            long untilToken = (long) Math.ceil((1 - tokens) / rate.perMilli());
            return Duration.ofMillis(Math.max(1, Math.min(untilToken, heldBackPause.toMillis())));
        }
        return heldBackPause;
    }

    /** The queue's limits. */
    ClusterLimits limits() {
        return limits;
    }

    /** The limits with their use as the last pick saw it. */
    LimitStatus status() {
        return new LimitStatus(limits, heldBack.get(), lastExecuting, lastTokens);
    }
}
