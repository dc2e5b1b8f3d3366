package dev.durable.chaos;

import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The instances of the rolling deploy ({@link DeployMachines}): inserted in waves over the insert window, on version 1
 * until the orchestrator has replaced every node (as the old application keeps starting them during a rolling
 * deploy), on version 2 after. Each instance writes six to twelve tokens, a second or two apart on durable timers, so
 * those started before the deploy are in flight while it happens. Inserts carry a unique key each, so an insert whose
 * answer was lost to a database restart is simply made again; the plan is written to {@code chaos.deploy_plan}.
 */
final class DeployWorkload {

    static final String DDL = """
            CREATE TABLE IF NOT EXISTS chaos.deploy_plan (
                instance_id bigint PRIMARY KEY,
                seq         int    NOT NULL,
                version     int    NOT NULL,
                planned     int    NOT NULL,
                pause_ms    int    NOT NULL
            );
            """;

    private static final int WAVES = 10;

    private final ChaosConfig config;
    private final DurableClient client;
    private final JdbcClient jdbc;
    private final BooleanSupplier deployed;
    private final Random random;
    private final DriverCalls calls = new DriverCalls();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger startedOnV1 = new AtomicInteger();
    private volatile @Nullable Throwable failure;

    /**
     * @param deployed whether every node runs version 2 by now: waves inserted after it turned true start on
     *                 version 2
     */
    DeployWorkload(ChaosConfig config, DurableClient client, DataSource dataSource, BooleanSupplier deployed) {
        this.config = config;
        this.client = client;
        this.jdbc = JdbcClient.create(dataSource);
        this.deployed = deployed;
        this.random = new Random(config.seed() + 2);
    }

    int started() {
        return started.get();
    }

    int startedOnV1() {
        return startedOnV1.get();
    }

    int callFailures() {
        return calls.failures();
    }

    @Nullable Throwable failure() {
        return failure;
    }

    /** Inserts the instances in waves over the insert window; returns when all are inserted. */
    void run() {
        try {
            long startNanos = System.nanoTime();
            int total = config.deployInstances();
            for (int wave = 0; wave < WAVES && total > 0; wave++) {
                pauseUntil(startNanos + config.insertWindow().toNanos() * wave / (WAVES - 1));
                insertWave(total * wave / WAVES, total * (wave + 1) / WAVES);
            }
        } catch (Throwable e) {
            failure = e;
            throw e;
        }
    }

    private void insertWave(int fromSeq, int toSeq) {
        if (fromSeq >= toSeq) {
            return;
        }
        int version = deployed.getAsBoolean() ? 2 : 1;
        EnumSet<InstanceStatus> everStatus = EnumSet.allOf(InstanceStatus.class);
        List<StartRequest> requests = new ArrayList<>();
        List<Object> seqs = new ArrayList<>();
        List<Object> planned = new ArrayList<>();
        List<Object> pauses = new ArrayList<>();
        for (int seq = fromSeq; seq < toSeq; seq++) {
            int tokens = 6 + random.nextInt(7);
            int pauseMs = 1000 + random.nextInt(1500);
            Object state = version == 1 ? new DeployMachines.LedgerV1(tokens, pauseMs, List.of())
                    : new DeployMachines.LedgerV2(tokens, pauseMs, List.of());
            requests.add(StartRequest.of(state, StartOptions.defaults().version(version).uniqueKey("deploy-" + seq)
                    .uniqueScope(everStatus)));
            seqs.add(seq);
            planned.add(tokens);
            pauses.add(pauseMs);
        }
        List<StartResult> results = calls.retrying("start deploy instances",
                () -> client.startAll(DeployMachines.NAME, requests));
        Object[] ids = results.stream().map(StartResult::id).toArray();
        calls.retrying("record the deploy instances' plan", () -> jdbc.sql("""
                INSERT INTO chaos.deploy_plan (instance_id, seq, version, planned, pause_ms)
                SELECT id, seq, :version, planned, pause_ms
                FROM unnest(:ids::bigint[], :seqs::int[], :planned::int[], :pauses::int[])
                     AS p (id, seq, planned, pause_ms)
                ON CONFLICT (instance_id) DO NOTHING
                """)
                .param("version", version)
                .param("ids", new SqlArrayValue("int8", ids))
                .param("seqs", new SqlArrayValue("int4", seqs.toArray()))
                .param("planned", new SqlArrayValue("int4", planned.toArray()))
                .param("pauses", new SqlArrayValue("int4", pauses.toArray()))
                .update());
        started.addAndGet(results.size());
        if (version == 1) {
            startedOnV1.addAndGet(results.size());
        }
    }

    private static void pauseUntil(long atNanos) {
        long left = atNanos - System.nanoTime();
        if (left > 0) {
            try {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000)); // pacing the driver, not synchronization
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while pacing the deploy instances", e);
            }
        }
    }
}
