package dev.durable.chaos;

import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The families of a chaos run ({@link FamilyMachines}): parents inserted in waves over the insert window, alongside
 * the main workload, and cancels sent while they run: a quarter of the parents are cancelled (the cancel cascades to
 * their members), and of some others one member is, a random time after the parent started. Each cancel is recorded
 * in {@code chaos.cancel} with the answer the driver was given, once it was given one; a cancel whose answer was lost
 * to a database restart is made again, and answers that it was made before.
 */
final class FamilyWorkload {

    static final String DDL = """
            CREATE TABLE IF NOT EXISTS chaos.cancel (
                instance_id     bigint PRIMARY KEY,
                role            text   NOT NULL,
                result          text   NOT NULL,
                attempts        int    NOT NULL,
                acknowledged_at timestamptz NOT NULL DEFAULT clock_timestamp()
            );
            """;

    /** The reason every cancel of the run gives, as the cancelled rows' last error shows it. */
    static final String REASON = "chaos cancel";

    private static final int WAVES = 10;

    /** A cancel due at {@code atNanos}: of the parent itself, or of one of its members. */
    private record DueCancel(long atNanos, long parentId, boolean member) {
    }

    private final ChaosConfig config;
    private final DurableClient client;
    private final JdbcClient jdbc;
    private final Random random;
    private final DriverCalls calls = new DriverCalls();
    private final PriorityQueue<DueCancel> due = new PriorityQueue<>((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger cancels = new AtomicInteger();
    private final Map<Long, String> cancelAnswers = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean insertsDone;
    private volatile @Nullable Throwable failure;

    FamilyWorkload(ChaosConfig config, DurableClient client, DataSource dataSource) {
        this.config = config;
        this.client = client;
        this.jdbc = JdbcClient.create(dataSource);
        this.random = new Random(config.seed() + 1);
    }

    int started() {
        return started.get();
    }

    int cancelsSent() {
        return cancels.get();
    }

    int callFailures() {
        return calls.failures();
    }

    @Nullable Throwable failure() {
        return failure;
    }

    /** Inserts the families in waves and sends the cancels as they fall due; returns when all are done. */
    void run() {
        try {
            long startNanos = System.nanoTime();
            int families = config.families();
            for (int wave = 0; wave < WAVES && families > 0; wave++) {
                long at = startNanos + config.insertWindow().toNanos() * wave / (WAVES - 1);
                cancelDueUntil(at);
                insertWave(families * (wave + 1) / WAVES - families * wave / WAVES);
            }
            insertsDone = true;
            cancelDueUntil(Long.MAX_VALUE);
        } catch (Throwable e) {
            failure = e;
            throw e;
        }
    }

    private void insertWave(int size) {
        List<StartRequest> requests = new ArrayList<>();
        for (int k = 0; k < size; k++) {
            List<FamilyMachines.Member> members = new ArrayList<>();
            for (int m = 0, n = 2 + random.nextInt(3); m < n; m++) {
                members.add(new FamilyMachines.Member(random.nextInt(2000), random.nextInt(10) == 0));
            }
            requests.add(StartRequest.of(new FamilyMachines.Family(members)));
        }
        if (requests.isEmpty()) {
            return;
        }
        List<StartResult> results = calls.retrying("start families",
                () -> client.startAll(FamilyMachines.PARENT, requests));
        long now = System.nanoTime();
        for (StartResult result : results) {
            int plan = random.nextInt(20);
            if (plan < 5) {
                due.add(new DueCancel(now + millis(random.nextInt(2500)), result.id(), false));
            } else if (plan < 8) {
                due.add(new DueCancel(now + millis(random.nextInt(2500)), result.id(), true));
            }
        }
        started.addAndGet(results.size());
    }

    /** Sends the cancels due before {@code untilNanos} (all of them, at their time, for the last call). */
    private void cancelDueUntil(long untilNanos) {
        while (!due.isEmpty() && (due.peek().atNanos() <= untilNanos || insertsDone)) {
            DueCancel next = due.poll();
            pauseUntil(next.atNanos());
            if (next.member()) {
                cancelAMember(next.parentId());
            } else {
                cancel(next.parentId(), "parent");
            }
        }
        if (!insertsDone) {
            pauseUntil(untilNanos);
        }
    }

    /** Cancels one member of the family, once the parent has started them (or not at all, if it never does). */
    private void cancelAMember(long parentId) {
        long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < giveUp) {
            List<DurableInstance> members = calls.retrying("read a family's members",
                    () -> client.children(parentId));
            if (!members.isEmpty()) {
                cancel(members.get(random.nextInt(members.size())).id(), "member");
                return;
            }
            pauseUntil(System.nanoTime() + millis(50));
        }
    }

    private void cancel(long id, String role) {
        int[] attempts = {0};
        CancelResult result = calls.retrying("cancel " + role + " " + id, () -> {
            attempts[0]++;
            return client.cancel(id, REASON);
        });
        calls.retrying("record a cancel", () -> jdbc.sql("""
                INSERT INTO chaos.cancel (instance_id, role, result, attempts) VALUES (:id, :role, :result, :attempts)
                ON CONFLICT (instance_id) DO NOTHING
                """)
                .param("id", id)
                .param("role", role)
                .param("result", result.outcome().name())
                .param("attempts", attempts[0])
                .update());
        cancelAnswers.put(id, result.outcome().name());
        cancels.incrementAndGet();
    }

    /** The answer of every cancel the client acknowledged, by instance (kept here, not only in the database). */
    Map<Long, String> cancelAnswers() {
        return Map.copyOf(cancelAnswers);
    }

    private static void pauseUntil(long atNanos) {
        long left = atNanos - System.nanoTime();
        if (left > 0) {
            try {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000)); // pacing the driver, not synchronization
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while pacing the families", e);
            }
        }
    }

    private static long millis(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }
}
