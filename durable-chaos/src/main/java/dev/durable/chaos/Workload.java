package dev.durable.chaos;

import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The load the orchestrator drives: instances inserted in waves with {@code startAll}, and one signal per instance,
 * delivered by a thread of its own — some right after the insert (before the instance reaches its await), some a
 * random time later, most once the instance is seen parked; a third get a second send with the same dedup key and a
 * different payload, which must never be the one the instance sees.
 *
 * <p>Everything is written down in the database ({@code chaos.plan}, {@code chaos.delivery}) for the checks. Every
 * call survives the database restarting: inserts are deduplicated by a unique key per planned instance, signals by
 * their dedup key, so a call whose fate was unknown is simply made again.
 */
final class Workload {

    static final String DDL = """
            CREATE TABLE IF NOT EXISTS chaos.plan (
                instance_id   bigint PRIMARY KEY,
                seq           int    NOT NULL,
                partition_key text,
                retries       int    NOT NULL,
                errors        int    NOT NULL,
                sleep_ms      int    NOT NULL,
                deadline_ms   int    NOT NULL,
                nonce         text   NOT NULL,
                mode          text   NOT NULL,
                duplicate     boolean NOT NULL
            );
            CREATE TABLE IF NOT EXISTS chaos.delivery (
                id          bigserial PRIMARY KEY,
                instance_id bigint  NOT NULL,
                nonce       text    NOT NULL,
                duplicate   boolean NOT NULL,
                result      text    NOT NULL,
                attempts    int     NOT NULL,
                sent_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
                UNIQUE (instance_id, duplicate)
            );
            """;

    /** When an instance's signal is sent. */
    enum Mode {
        /** Right after the insert: usually before the instance reaches its await. */
        EARLY,
        /** A random time after the insert, wherever the instance is then. */
        DELAYED,
        /** Once the instance is seen awaiting. */
        ON_AWAIT
    }

    /** One planned instance. */
    record Plan(int seq, @Nullable String partitionKey, int retries, int errors, int sleepMs, int deadlineMs,
            String nonce, Mode mode, boolean duplicate) {
    }

    private record Due(long atNanos, long instanceId, Plan plan, boolean duplicate) {
    }


    private final ChaosConfig config;
    private final DurableClient client;
    private final JdbcClient jdbc;
    private final Random random;
    private final Runnable onProgress;
    private final List<Plan> plans = new ArrayList<>();
    private final Map<Long, Plan> started = new HashMap<>();
    private final PriorityQueue<Due> due = new PriorityQueue<>((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
    private final Set<Long> waitingForAwait = new HashSet<>();
    private final AtomicInteger inserted = new AtomicInteger();
    private final AtomicInteger sent = new AtomicInteger();
    private final DriverCalls calls = new DriverCalls();
    private final AtomicBoolean insertsDone = new AtomicBoolean();
    /** The first signal of each instance that the client acknowledged, by instance: its nonce (kept here, not in the
     * database, so that a failover that loses rows cannot lose the record of what was acknowledged). */
    private final Map<String, String> acknowledgedSignals = new java.util.concurrent.ConcurrentHashMap<>();
    /** Every start {@code startAll} acknowledged: its unique key and the id it was given (after a failover that lost
     * it, the id may be handed out again, so the key names the instance). */
    private final Map<String, Long> acknowledgedStarts = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile @Nullable Throwable failure;

    Workload(ChaosConfig config, DurableClient client, DataSource dataSource, Runnable onProgress) {
        this.config = config;
        this.client = client;
        this.jdbc = JdbcClient.create(dataSource);
        this.random = new Random(config.seed());
        this.onProgress = onProgress;
        for (int seq = 0; seq < config.instances(); seq++) {
            plans.add(plan(seq));
        }
    }

    private Plan plan(int seq) {
        String key = random.nextInt(10) < 8 ? "key-" + random.nextInt(config.partitionKeys()) : null;
        int retries = pick(new int[] {0, 0, 0, 0, 0, 1, 1, 1, 2, 2});
        int errors = pick(new int[] {0, 0, 0, 1, 1});
        int m = random.nextInt(10);
        Mode mode = m < 2 ? Mode.EARLY : m < 4 ? Mode.DELAYED : Mode.ON_AWAIT;
        // A quarter sleep on a durable timer after prepare; four in ten await with a deadline, short enough that
        // it often fires before the signal and sometimes races it.
        int sleepMs = random.nextInt(4) == 0 ? 50 + random.nextInt(1500) : 0;
        int deadlineMs = random.nextInt(10) < 4 ? 50 + random.nextInt(750) : 0;
        return new Plan(seq, key, retries, errors, sleepMs, deadlineMs,
                "n" + seq + "-" + Long.toHexString(random.nextLong()), mode, random.nextInt(100) < 35);
    }

    private int pick(int[] choices) {
        return choices[random.nextInt(choices.length)];
    }

    int inserted() {
        return inserted.get();
    }

    int signalsSent() {
        return sent.get();
    }

    /** Calls that failed (the database was away) and were made again. */
    int callFailures() {
        return calls.failures();
    }

    @Nullable Throwable failure() {
        return failure;
    }

    /** Every start the client acknowledged: the id {@code startAll} returned, by the instance's unique key. */
    Map<String, Long> acknowledgedStarts() {
        return Map.copyOf(acknowledgedStarts);
    }

    /** The nonce of every first signal the client acknowledged, by its instance's unique key. */
    Map<String, String> acknowledgedSignals() {
        return Map.copyOf(acknowledgedSignals);
    }

    /** Inserts the planned instances in waves spread over the insert window. */
    void insertAll() {
        try {
            int waves = config.waves();
            long startNanos = System.nanoTime();
            for (int wave = 0; wave < waves; wave++) {
                long at = startNanos + config.insertWindow().toNanos() * wave / Math.max(1, waves - 1);
                pauseUntil(at);
                int from = plans.size() * wave / waves;
                int to = plans.size() * (wave + 1) / waves;
                insertWave(plans.subList(from, to));
                onProgress.run();
            }
        } catch (Throwable e) {
            failure = e;
            throw e;
        } finally {
            insertsDone.set(true);
        }
    }

    private void insertWave(List<Plan> wave) {
        EnumSet<InstanceStatus> everStatus = EnumSet.allOf(InstanceStatus.class);
        List<StartRequest> requests = wave.stream().map(plan -> StartRequest.of(
                new ChaosMachine.State(plan.retries(), plan.errors(), plan.sleepMs(), plan.deadlineMs(), List.of()),
                StartOptions.defaults().partitionKey(plan.partitionKey()).uniqueKey(uniqueKey(plan)).uniqueScope(everStatus))).toList();
        List<StartResult> results = calls.retrying("insert a wave",
                () -> client.startAll(ChaosMachine.NAME, requests));
        List<Object> ids = new ArrayList<>();
        List<Object> seqs = new ArrayList<>();
        List<Object> keys = new ArrayList<>();
        List<Object> retries = new ArrayList<>();
        List<Object> errors = new ArrayList<>();
        List<Object> sleeps = new ArrayList<>();
        List<Object> deadlines = new ArrayList<>();
        List<Object> nonces = new ArrayList<>();
        List<Object> modes = new ArrayList<>();
        List<Object> duplicates = new ArrayList<>();
        for (int k = 0; k < wave.size(); k++) {
            Plan plan = wave.get(k);
            ids.add(results.get(k).id());
            seqs.add(plan.seq());
            keys.add(plan.partitionKey());
            retries.add(plan.retries());
            errors.add(plan.errors());
            sleeps.add(plan.sleepMs());
            deadlines.add(plan.deadlineMs());
            nonces.add(plan.nonce());
            modes.add(plan.mode().name());
            duplicates.add(plan.duplicate());
        }
        calls.retrying("record a wave's plan", () -> jdbc.sql("""
                INSERT INTO chaos.plan (instance_id, seq, partition_key, retries, errors, sleep_ms, deadline_ms, nonce,
                                        mode, duplicate)
                SELECT * FROM unnest(:ids::bigint[], :seqs::int[], :keys::text[], :retries::int[], :errors::int[],
                                     :sleeps::int[], :deadlines::int[], :nonces::text[], :modes::text[],
                                     :duplicates::boolean[])
                ON CONFLICT (instance_id) DO NOTHING
                """)
                .param("ids", new SqlArrayValue("int8", ids.toArray()))
                .param("seqs", new SqlArrayValue("int4", seqs.toArray()))
                .param("keys", new SqlArrayValue("text", keys.toArray()))
                .param("retries", new SqlArrayValue("int4", retries.toArray()))
                .param("errors", new SqlArrayValue("int4", errors.toArray()))
                .param("sleeps", new SqlArrayValue("int4", sleeps.toArray()))
                .param("deadlines", new SqlArrayValue("int4", deadlines.toArray()))
                .param("nonces", new SqlArrayValue("text", nonces.toArray()))
                .param("modes", new SqlArrayValue("text", modes.toArray()))
                .param("duplicates", new SqlArrayValue("bool", duplicates.toArray()))
                .update());
        long now = System.nanoTime();
        synchronized (this) {
            for (int k = 0; k < wave.size(); k++) {
                Plan plan = wave.get(k);
                long id = results.get(k).id();
                if (started.put(id, plan) != null) {
                    // The id was handed out before, to an instance a failover lost: only the new one is waited for.
                    waitingForAwait.remove(id);
                }
                acknowledgedStarts.put(uniqueKey(plan), id);
                switch (plan.mode()) {
                    case EARLY -> due.add(new Due(now, id, plan, false));
                    case DELAYED -> due.add(new Due(now + millis(random.nextInt(6000)), id, plan, false));
                    case ON_AWAIT -> waitingForAwait.add(id);
                }
            }
            notifyAll();
        }
        inserted.addAndGet(wave.size());
    }

    /** Sends every planned signal (and duplicate) as it falls due; returns when all are sent. */
    void signalAll() {
        try {
            long lastAwaitScan = 0;
            while (true) {
                long now = System.nanoTime();
                if (now - lastAwaitScan > millis(200)) {
                    lastAwaitScan = now;
                    scanAwaiting(now);
                }
                Due next;
                synchronized (this) {
                    if (insertsDone.get() && due.isEmpty() && waitingForAwait.isEmpty()) {
                        return;
                    }
                    next = due.peek();
                    if (next == null || next.atNanos() > now) {
                        long wait = next == null ? 50 : Math.min(50, (next.atNanos() - now) / 1_000_000 + 1);
                        wait(Math.max(1, wait));
                        continue;
                    }
                    due.poll();
                }
                send(next);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure = e;
            throw e;
        }
    }

    private void scanAwaiting(long now) {
        List<Long> candidates;
        List<String> keys;
        synchronized (this) {
            candidates = List.copyOf(waitingForAwait);
            keys = candidates.stream().map(id -> uniqueKey(started.get(id))).toList();
        }
        if (candidates.isEmpty()) {
            return;
        }
        // Parked, or gone, or ended: after a failover that lost it, an acknowledged start is signalled all the same
        // (and refused, or, if its id was handed out again, delivered to whatever instance has it now). An instance
        // that ended without being seen parked would otherwise be waited for forever; its signal is refused.
        List<Long> parked = calls.retrying("find parked instances", () -> jdbc.sql("""
                SELECT c.id FROM unnest(:ids::bigint[], :keys::text[]) AS c(id, unique_key)
                LEFT JOIN durable.durable_instance i ON i.id = c.id
                WHERE i.id IS NULL OR i.unique_key IS DISTINCT FROM c.unique_key
                   OR i.status IN ('awaiting_signal', 'done', 'failed', 'cancelled')
                """).param("ids", new SqlArrayValue("int8", candidates.toArray()))
                .param("keys", new SqlArrayValue("text", keys.toArray())).query(Long.class).list());
        synchronized (this) {
            for (long id : parked) {
                if (waitingForAwait.remove(id)) {
                    due.add(new Due(now, id, started.get(id), false));
                }
            }
        }
    }

    private void send(Due item) {
        String nonce = item.duplicate() ? "dup-" + item.plan().nonce() : item.plan().nonce();
        int[] attempts = {0};
        SignalResult result = calls.retrying("send a signal", () -> {
            attempts[0]++;
            return client.signal(item.instanceId(), ChaosMachine.SIGNAL, new ChaosMachine.Go(nonce),
                    "go-" + item.instanceId());
        });
        if (!item.duplicate() && (result.delivery() == SignalResult.Delivery.DELIVERED
                || (result.delivery() == SignalResult.Delivery.DEDUPLICATED && attempts[0] > 1))) {
            acknowledgedSignals.put(uniqueKey(item.plan()), nonce);
        }
        calls.retrying("record a delivery", () -> jdbc.sql("""
                INSERT INTO chaos.delivery (instance_id, nonce, duplicate, result, attempts)
                VALUES (:instance, :nonce, :duplicate, :result, :attempts)
                ON CONFLICT (instance_id, duplicate) DO NOTHING
                """)
                .param("instance", item.instanceId())
                .param("nonce", nonce)
                .param("duplicate", item.duplicate())
                .param("result", result.delivery().name())
                .param("attempts", attempts[0])
                .update());
        sent.incrementAndGet();
        if (!item.duplicate() && item.plan().duplicate()) {
            synchronized (this) {
                due.add(new Due(System.nanoTime() + millis(random.nextInt(3000)), item.instanceId(), item.plan(),
                        true));
            }
        }
    }

    static String uniqueKey(Plan plan) {
        return "chaos-" + plan.seq();
    }

    private static void pauseUntil(long atNanos) {
        long left = atNanos - System.nanoTime();
        if (left > 0) {
            try {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while pacing the inserts", e);
            }
        }
    }

    private static long millis(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }
}
