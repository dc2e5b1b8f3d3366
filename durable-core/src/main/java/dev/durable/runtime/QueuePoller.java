package dev.durable.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;

/**
 * The first stretch of a step's path, for one queue: a poller thread of its own (so a slow pick of one queue never
 * delays another) claims rows, at most as many as the queue has free {@link QueueSlots slots}, takes a slot for
 * each and hands row and slot to the {@link StepExecutor}. It never hears from a step again: the step releases its
 * slot, and a released slot wakes the poller. It also polls every poll interval, to find work inserted by other
 * nodes, and at once when local work arrives. It picks nothing while {@code mayPick} says no: while the deploy check
 * holds the node back ({@code DeployGuard}).
 */
final class QueuePoller {

    private static final Logger log = LoggerFactory.getLogger(QueuePoller.class);
    private static final int PARTITION_RACE_RETRIES = 3;

    private final String name;
    private final QueueSettings settings;
    private final Map<String, List<Integer>> machines;
    private final ClaimRepository claims;
    private final StepExecutor executor;
    private final EngineEvents events;
    private final String nodeId;
    private final Duration lease;
    private final Duration pollInterval;
    private final long batchWindowNanos;
    private final QueueSlots slots;
    private final BackgroundLoop loop;
    private final BooleanSupplier mayPick;
    private volatile boolean paused;
    /** While slots are about to free, the pick waits for them until this time (System.nanoTime); 0 when not. */
    private long gatherUntil;

    QueuePoller(String name, QueueSettings settings, Map<String, List<Integer>> machines,
            ClaimRepository claims, StepExecutor executor, EngineEvents events, NodeLifecycle lifecycle,
            String nodeId, EngineSettings engine, BooleanSupplier mayPick) {
        this.name = name;
        this.settings = settings;
        this.machines = Map.copyOf(machines);
        this.claims = claims;
        this.executor = executor;
        this.events = events;
        this.nodeId = nodeId;
        this.mayPick = mayPick;
        this.lease = engine.leaseTtl();
        this.pollInterval = engine.pollInterval();
        this.batchWindowNanos = engine.batchWindow().toNanos();
        this.slots = new QueueSlots(settings.concurrency(), settings.batchSize(), this::wake,
                new Refill(name, machines, nodeId));
        this.loop = new BackgroundLoop("durable-poller-" + name, this::pollOnce, lifecycle, events,
                engine.maxRetryBackoff());
    }

    int concurrency() {
        return slots.concurrency();
    }

    int inFlight() {
        return slots.concurrency() - slots.free();
    }

    QueueSlots slots() {
        return slots;
    }

    boolean isPaused() {
        return paused;
    }

    /** Whether this node polls the queue at all (it has slots and machines to run). */
    boolean isActive() {
        return settings.concurrency() > 0 && !machines.isEmpty();
    }

    void start() {
        if (isActive()) {
            loop.start();
        }
    }

    /** Stops picking; running steps go on. */
    void stopPolling(Duration timeout) {
        loop.stop(timeout);
    }

    void pause() {
        paused = true;
        slots.paused(true);
        log.info("Queue {} paused on this node", name);
    }

    void resume() {
        paused = false;
        slots.paused(false);
        log.info("Queue {} resumed on this node", name);
        loop.wake();
    }

    /** Local work arrived: poll now. */
    void wake() {
        loop.wake();
    }

    private Duration pollOnce() {
        int available = slots.free();
        if (paused || available <= 0 || !mayPick.getAsBoolean()) {
            return pollInterval;
        }
        int limit = Math.min(available, settings.batchSize());
        Duration gathering = gatherFreeingSlots(limit);
        if (gathering != null) {
            return gathering;
        }
        List<ClaimedStep> claimed = pick(limit);
        slots.backlog(claimed.size() == limit);
        if (!claimed.isEmpty()) {
            events.picked(name, claimed.size());
            for (ClaimedStep step : claimed) {
                executor.execute(step, slots.take());
            }
        }
        // A full batch suggests more is waiting: pick again now. So does a partial batch holding partitioned rows:
        // the pick takes one row per key, so the head of a hot key can fill the candidates and hide other keys;
        // the next pick skips that key, now executing, and reaches them.
        boolean partitioned = claimed.stream().anyMatch(step -> step.partitionKey() != null);
        return claimed.size() == limit || (partitioned && slots.free() > 0) ? Duration.ZERO : untilNextEligible();
    }

    /**
     * How long to pause once the due work is picked: until the next waiting row falls due (a durable timer, a
     * retry's back-off), plus a millisecond so that it is due when the pick runs, and at most one poll interval (rows
     * inserted by other nodes are found within one). So a timer fires a pick's time after it falls due, not up to a
     * poll interval later.
     */
    private Duration untilNextEligible() {
        return BackgroundLoop.pauseUntil(claims.millisUntilNextEligible(name), pollInterval);
    }

    /**
     * When only part of a batch is free but more slots are about to free (their outcomes are being committed in one
     * group), waits up to the batch window for them, so one pick claims them all instead of several small picks
     * claiming a few each. Returns how long to pause, or null to pick now.
     */
    private Duration gatherFreeingSlots(int limit) {
        if (limit >= settings.batchSize() || slots.committing() == 0 || batchWindowNanos <= 0) {
            gatherUntil = 0;
            return null;
        }
        long now = System.nanoTime();
        if (gatherUntil == 0) {
            gatherUntil = now + batchWindowNanos;
        }
        long left = gatherUntil - now;
        if (left <= 0) {
            gatherUntil = 0;
            return null;
        }
        return Duration.ofNanos(left);
    }

    private List<ClaimedStep> pick(int limit) {
        for (int attempt = 1; ; attempt++) {
            try {
                return claims.pick(name, machines, limit, nodeId, lease);
            } catch (DuplicateKeyException e) {
                // Another node claimed a row of the same partition key at the same moment; nothing was claimed.
                if (attempt >= PARTITION_RACE_RETRIES) {
                    log.debug("Pick of queue {} kept racing on partition keys; next poll retries", name);
                    return List.of();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "queue " + name;
    }
}
