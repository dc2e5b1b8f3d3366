package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.node.WorkProbe;
import dev.durable.runtime.queue.QueueOwner;
import dev.durable.testing.CountingDataSource;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Finding work other nodes made (docs/DESIGN.md, "Finding work"): an idle node runs one statement per poll interval,
 * the probe, whatever the number of its queues; the probe wakes the poller of a queue with a due row, the deadline
 * sweep and the schedule sweep; a due row this node cannot take (a machine version it does not run) costs it one pick
 * a second, not one per probe.
 */
class ProbeTest {

    record Job(int n) {
    }

    private static final Duration POLL = Duration.ofMillis(50);

    private final CountingDataSource counting = new CountingDataSource(TestDatabase.dataSource());
    private final ConcurrentHashMap<Integer, Long> startedAt = new ConcurrentHashMap<>();
    private DurableEngine engine;

    @BeforeEach
    void clean() {
        TestDatabase.clean();
    }

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    private MachineDefinition job(String name, String queue) {
        return MachineDefinition.builder(name, 1, Job.class)
                .queue(queue)
                .step("run", (job, ctx) -> {
                    startedAt.put(job.n(), System.nanoTime());
                    return Outcome.done();
                })
                .build();
    }

    /** A node of five queues whose heartbeat and reaper stay out of the way of the statements counted. */
    private DurableEngine idleNode(UnaryOperator<EngineSettings.Builder> adjust) {
        MachineDefinition[] machines = new MachineDefinition[5];
        for (int q = 0; q < 5; q++) {
            machines[q] = job("job-" + q, "q" + q);
        }
        engine = DurableEngine.builder(counting.dataSource(), MachineRegistry.of(machines))
                .settings(adjust.apply(EngineFixture.fastSettings("probe", machines)
                        .pollInterval(POLL)
                        .idlePollInterval(POLL)
                        .heartbeatInterval(Duration.ofSeconds(30))
                        .leaseTtl(Duration.ofSeconds(90))
                        .reaperInterval(Duration.ofSeconds(30)))
                        .build())
                .build();
        engine.start();
        return engine;
    }

    /** A row inserted by another node: nothing on this node hears of it but its probe. */
    private static long insertedElsewhere(String machine, int version, String queue, int n) {
        return TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) VALUES (?, ?, 'run', ?::jsonb, ?) RETURNING id",
                Long.class, machine, version, "{\"n\": " + n + "}", queue);
    }

    @Test
    void anIdleNodeOfFiveQueuesRunsOnlyTheProbe() {
        idleNode(UnaryOperator.identity());
        // Settled: the first polls and sweeps of a starting node are done.
        await().atMost(Duration.ofSeconds(10)).until(() -> counting.statements().stream()
                .filter(sql -> sql.contains("/* durable: probe */")).count() >= 3);
        counting.reset();

        await().atMost(Duration.ofSeconds(10)).until(() -> counting.statements().stream()
                .filter(sql -> sql.contains("/* durable: probe */")).count() >= 20);

        List<String> others = counting.statements().stream().filter(sql -> !sql.contains("/* durable: probe"))
                .toList();
        assertThat(others).as("no pick, next-eligible, deadline or schedule statement while nothing is due")
                .isEmpty();
    }

    @Test
    void anIdleNodeLooksOncePerIdlePollIntervalAndEveryPollIntervalOnceItSeesWork() {
        idleNode(settings -> settings.idlePollInterval(Duration.ofSeconds(1)));
        await().atMost(Duration.ofSeconds(10)).until(() -> probes() >= 1);
        counting.reset();
        long idleFrom = System.nanoTime();

        await().atMost(Duration.ofSeconds(10)).until(() -> probes() >= 3);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleFrom)).as("three idle looks, a second apart")
                .isGreaterThan(1_500);

        long id = insertedElsewhere("job-4", 1, "q4", 4);
        await().atMost(Duration.ofSeconds(5)).until(() -> TestDatabase.status(id).equals("done"));
        counting.reset();
        long busyFrom = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> probes() >= 10);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - busyFrom))
                .as("ten looks at the poll interval of a node that has just seen work").isLessThan(5_000);
    }

    private long probes() {
        return counting.statements().stream().filter(sql -> sql.contains("/* durable: probe */")).count();
    }

    @Test
    void theProbeWakesThePollerOfTheQueueWhereAnotherNodeAddedWork() {
        idleNode(settings -> settings.pollInterval(Duration.ofMillis(100)).idlePollInterval(Duration.ofMillis(100)));
        long id = insertedElsewhere("job-3", 1, "q3", 7);
        long inserted = System.nanoTime();

        await().atMost(Duration.ofSeconds(5)).until(() -> TestDatabase.status(id).equals("done"));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(startedAt.get(7) - inserted);
        assertThat(tookMillis).as("found within about one poll interval").isLessThan(1_000);
    }

    @Test
    void aDueRowBehindAHigherPriorityRowNotYetDueIsFoundWithinASecondOrSo() {
        idleNode(UnaryOperator.identity());
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, priority, eligible_at)"
                + " VALUES ('job-2', 1, 'run', '{\"n\": 1}', 'q2', 0, now() + interval '1 hour')");
        long behind = TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, priority) VALUES ('job-2', 1, 'run',"
                + " '{\"n\": 2}', 'q2', 5) RETURNING id", Long.class);

        // The head of q2 is the timer an hour away: only the look at every priority finds the row behind it.
        await().atMost(WorkProbe.EVERY_PRIORITY_INTERVAL.multipliedBy(5)).until(() -> TestDatabase.status(behind)
                .equals("done"));
    }

    @Test
    void aSuspendedRowIsNeverDueAndDoesNotBreakTheProbe() {
        idleNode(UnaryOperator.identity());
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, eligible_at, suspension)"
                + " VALUES ('job-1', 1, 'run', '{\"n\": 1}', 'q1', 'infinity', 'lossy: $.gone')");
        await().atMost(Duration.ofSeconds(10)).until(() -> probes() >= 3); // settled: the start's sweeps are done
        counting.reset();
        await().atMost(Duration.ofSeconds(10)).until(() -> probes() >= 30);

        assertThat(counting.statements()).as("nothing but probes: the suspended row is never due")
                .allMatch(sql -> sql.contains("/* durable: probe"));
        assertThat(engine.stats().componentFailures()).isZero();
    }

    @Test
    void aDueRowThisNodeCannotTakeCostsOnePickASecondNotOnePerProbe() {
        idleNode(UnaryOperator.identity());
        insertedElsewhere("job-0", 2, "q0", 1); // version 2: no node here runs it
        await().atMost(Duration.ofSeconds(10)).until(() -> counting.statements().stream()
                .anyMatch(sql -> sql.contains("/* durable: pick */")));
        // The pause after each empty pick doubles from a poll interval to a second: 50 + 100 + ... + 800 ms.
        await().atMost(Duration.ofSeconds(20)).until(() -> probes() >= 40);
        counting.reset();

        // Forty probes' worth of time (2 s at 50 ms): the probe finds the row due every time.
        await().atMost(Duration.ofSeconds(20)).until(() -> probes() >= 40);

        long picks = counting.statements().stream().filter(sql -> sql.contains("/* durable: pick */")).count();
        assertThat(picks).as("one pick per " + QueueOwner.AFTER_FUTILE_PICK).isBetween(1L, 3L);
    }

    @Test
    void theProbeWakesTheDeadlineSweepForADeadlineAnotherNodeSet() {
        idleNode(UnaryOperator.identity());
        long id = TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, status, awaits, deadline)"
                + " VALUES ('job-1', 1, 'run', '{\"n\": 1}', 'q1', 'awaiting_signal', 'go',"
                + " now() + interval '300 milliseconds') RETURNING id", Long.class);

        // The deadline sweep sleeps a minute when nothing is due; only the probe can have woken it.
        await().atMost(Duration.ofSeconds(5)).until(() -> TestDatabase.status(id).equals("done"));
    }
}
