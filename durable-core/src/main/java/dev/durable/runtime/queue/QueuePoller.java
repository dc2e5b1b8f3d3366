package dev.durable.runtime.queue;

import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.support.NodeLifecycle;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;

/**
 * The first stretch of a step's path, for one queue: a poller thread of its own (so a slow pick of one queue never
 * delays another) claims rows, at most as many as its {@link QueueSlots} may hold ({@link QueueSlots#claimable()}),
 * and hands each to the {@link StepExecutor}, where it waits for a slot. It never hears from a step again: the step
 * gives back its claim, and an ended claim wakes the poller. It polls at once when local work arrives, when the node's
 * {@code WorkProbe} finds work other nodes made, and when the next row it knows of falls due. It picks nothing while
 * {@code mayPick} says no: while the deploy check holds the node back ({@code DeployGuard}, which wakes it when it
 * lets go).
 */
public final class QueuePoller {

    private static final Logger log = LoggerFactory.getLogger(QueuePoller.class);
    private static final int PARTITION_RACE_RETRIES = 3;
    /**
     * The longest the poller ignores the probe after picks the probe asked for found nothing: the due rows are not this
     * node's to take, for now (a partition key busy elsewhere) or for good (a machine version it does not run). The
     * pause starts at a poll interval and doubles with every such pick in a row, up to this: one look a second is
     * what the poller used to spend on an idle queue.
     */
    public static final Duration AFTER_FUTILE_PICK = Duration.ofSeconds(1);
    /**
     * The longest the poller sleeps without being woken: it learns of work from the probe, from this node's own
     * starts, signals and commits, and from the next due row it asked for; this is only a safety net.
     */
    public static final Duration LONGEST_PAUSE = Duration.ofMinutes(1);

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
    /** Between {@link #start()} and {@link #stopPolling}: the node runs this queue's work. */
    private volatile boolean polling;
    /** While claims are about to end, the pick waits for them until this time (System.nanoTime); 0 when not. */
    private long gatherUntil;
    /** The probe found due work and woke the poller; cleared by the next poll. */
    private volatile boolean wokenByProbe;
    /** Until when (System.nanoTime) the probe's finds are ignored, after they led to empty picks. */
    private volatile long probeIgnoredUntil;
    /** The pause of the probe's finds after the last empty pick they led to; zero after a pick that claimed rows. */
    private Duration futilePause = Duration.ZERO;

    public QueuePoller(String name, QueueSettings settings, Map<String, List<Integer>> machines,
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
        this.slots = new QueueSlots(settings.concurrency(), settings.batchSize(), this::wake, executor::start);
        this.loop = new BackgroundLoop("durable-poller-" + name, this::pollOnce, lifecycle, events,
                engine.maxRetryBackoff());
    }

    public int concurrency() {
        return slots.concurrency();
    }

    /** Rows this node holds for the queue: waiting for a slot, running, or committing their outcome. */
    public int inFlight() {
        return slots.claims();
    }

    public QueueSlots slots() {
        return slots;
    }

    public boolean isPaused() {
        return paused;
    }

    /** Whether this node polls the queue at all (it has slots and machines to run). */
    public boolean isActive() {
        return settings.concurrency() > 0 && !machines.isEmpty();
    }

    public void start() {
        if (isActive()) {
            polling = true;
            loop.start();
        }
    }

    /** Stops picking; running steps go on. */
    public void stopPolling(Duration timeout) {
        polling = false;
        loop.stop(timeout);
    }

    /** Whether the node works this queue now: started, and not stopping. */
    boolean isPolling() {
        return polling;
    }

    /**
     * Promises a claim to a row of {@code machine} at {@code version} a local start is about to insert, when the row
     * would start at once here: the queue is worked and picks (not paused, nor held by the deploy check), runs that
     * version, has no backlog, and a slot is free ({@link QueueSlots#reserve()}). The caller hands the claimed row to
     * the executor or takes the promise back (docs/DESIGN.md, "Local starts").
     */
    boolean reserveForStart(String machine, int version) {
        if (!polling || paused || slots.hasBacklog() || !mayPick.getAsBoolean()) {
            return false;
        }
        List<Integer> versions = machines.get(machine);
        return versions != null && versions.contains(version) && slots.reserve();
    }

    public void pause() {
        paused = true;
        log.info("Queue {} paused on this node", name);
    }

    public void resume() {
        paused = false;
        log.info("Queue {} resumed on this node", name);
        loop.wake();
    }

    /** Local work arrived: poll now. */
    public void wake() {
        loop.wake();
    }

    /** The probe found a due runnable row on the queue, made by any node: poll now, unless such finds led nowhere. */
    public void workFound() {
        if (System.nanoTime() - probeIgnoredUntil >= 0) {
            wokenByProbe = true;
            loop.wake();
        }
    }

    private Duration pollOnce() {
        boolean byProbe = wokenByProbe;
        wokenByProbe = false;
        int limit = slots.claimable();
        if (paused || !mayPick.getAsBoolean()) {
            return LONGEST_PAUSE; // resumed, or the deploy check lets go: each wakes the poller
        }
        if (limit <= 0) {
            slots.pollerWantsRoom(); // the first claim that makes room wakes the poller
            return LONGEST_PAUSE;
        }
        Duration gathering = gatherEndingClaims(limit);
        if (gathering != null) {
            return gathering;
        }
        limit = slots.beginPick(); // local starts may have taken claims since (docs/DESIGN.md, "Local starts")
        List<ClaimedStep> claimed;
        try {
            if (limit <= 0) {
                slots.pollerWantsRoom();
                return LONGEST_PAUSE;
            }
            claimed = pick(limit);
            if (!claimed.isEmpty()) {
                events.picked(name, claimed.size());
            }
            for (ClaimedStep step : claimed) {
                executor.accept(step, slots);
            }
        } finally {
            slots.endPick();
        }
        slots.backlog(claimed.size() == limit);
        if (byProbe && claimed.isEmpty()) {
            futilePause = futilePause.isZero() ? pollInterval
                    : Collections.min(List.of(futilePause.multipliedBy(2), AFTER_FUTILE_PICK));
            probeIgnoredUntil = System.nanoTime() + futilePause.toNanos();
        } else if (!claimed.isEmpty()) {
            futilePause = Duration.ZERO;
        }
        // A full batch suggests more is waiting: pick again now. So does a partial batch holding partitioned rows:
        // the pick takes one row per key, so the head of a hot key can fill the candidates and hide other keys;
        // the next pick skips that key, now executing, and reaches them.
        boolean partitioned = claimed.stream().anyMatch(step -> step.partitionKey() != null);
        if (claimed.size() == limit || (partitioned && slots.claimable() > 0)) {
            return Duration.ZERO;
        }
        // A queue that had work may soon have more that this pick could not take (a partition key busy elsewhere):
        // it looks again within a poll interval. One that had none waits for the probe or a local wake-up.
        return untilNextEligible(claimed.isEmpty() ? LONGEST_PAUSE : pollInterval);
    }

    /**
     * How long to pause once the due work is picked: until the next waiting row falls due (a durable timer, a
     * retry's back-off), plus a millisecond so that it is due when the pick runs, at most {@code longest}. So a timer
     * fires a pick's time after it falls due, not up to a poll interval later. Rows other nodes add meanwhile are
     * found by the probe.
     */
    private Duration untilNextEligible(Duration longest) {
        return BackgroundLoop.pauseUntil(claims.millisUntilNextEligible(name), longest);
    }

    /**
     * When the queue has a backlog and only part of a batch may be claimed but more claims are about to end (their
     * outcomes are being committed in one group), waits up to the batch window for them, so one pick claims them all
     * instead of several small picks claiming a few each. Without a backlog there is nothing to gather: the pick was
     * woken by a row or two (a local start, a signal) that would only wait. Returns how long to pause, or null to
     * pick now.
     */
    private Duration gatherEndingClaims(int limit) {
        if (limit >= settings.batchSize() || !slots.hasBacklog() || slots.committing() == 0
                || batchWindowNanos <= 0) {
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
