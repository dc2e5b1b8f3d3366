package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.StartRequest;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.testing.CountingDataSource;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Refill (docs/DESIGN.md, "The life of a step"): while its queue has a backlog, a step's commit claims the queue's next
 * row and the step's claim passes to it, so a backlog drains with at most one commit per step and most picks ride in
 * the outcomes' transactions; once the queue runs dry the claims end and the poller finds new work as before.
 */
class RefillTest {

    record Unit(int n) {
    }

    private static final String PICK = "/* durable: pick */";
    private final CountingDataSource counting = new CountingDataSource(TestDatabase.dataSource());
    private DurableEngine engine;

    private static MachineDefinition unit() {
        return MachineDefinition.builder("unit", 1, Unit.class)
                .step("only", (unit, ctx) -> Outcome.done(unit.n()))
                .build();
    }

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

    @Test
    void aBacklogDrainsWithAtMostOneCommitPerStepMostPicksRidingInTheOutcomesTransactions() {
        engine = DurableEngine.builder(counting.dataSource(), MachineRegistry.of(unit()))
                .settings(EngineFixture.fastSettings("refill", unit())
                        .queue("default", new QueueSettings(1, 1))
                        .pollInterval(Duration.ofSeconds(30)) // the poller finds the first row; refills do the rest
                        .idlePollInterval(Duration.ofSeconds(30))
                        // No heartbeat or reaper statement between an outcome and its refill in the log on a slow
                        // machine: the statements are counted by what runs next to what.
                        .leaseTtl(Duration.ofMinutes(3)).heartbeatInterval(Duration.ofMinutes(1))
                        .reaperInterval(Duration.ofMinutes(1))
                        .build())
                .build();
        engine.client().startAll("unit", IntStream.range(0, 40).mapToObj(n -> StartRequest.of(new Unit(n))).toList());
        counting.reset();

        engine.start();

        await().atMost(Duration.ofSeconds(30)).until(() -> TestDatabase.jdbc().queryForObject("SELECT count(*) FROM "
                + TestDatabase.SCHEMA + ".durable_instance WHERE status = 'done'", Long.class) == 40);
        // The poller's picks fill the slot and the prefetch; then each outcome's transaction claims the row that
        // replaces its claim, before its commit. Without refills, every pick would come after a commit, on its own.
        List<String> log = counting.log();
        long picksInOutcomeTransactions = IntStream.range(1, log.size())
                .filter(k -> log.get(k).contains(PICK) && log.get(k - 1).contains("/* durable: clear inboxes */")
                        && k + 1 < log.size() && log.get(k + 1).equals(CountingDataSource.COMMIT))
                .count();
        assertThat(picksInOutcomeTransactions).isGreaterThanOrEqualTo(20L);
        assertThat(engine.stats().picked()).isEqualTo(40);
        assertThat(engine.stats().outcomeFlushes()).isLessThanOrEqualTo(41L);
    }

    @Test
    void onceTheQueueRunsDryThePollerFindsNewWorkAsBefore() {
        engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(unit()))
                .settings(EngineFixture.fastSettings("refill", unit()).queue("default", new QueueSettings(2, 2))
                        .build())
                .build();
        engine.start();
        engine.client().startAll("unit", IntStream.range(0, 10).mapToObj(n -> StartRequest.of(new Unit(n))).toList());
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.inFlight() == 0 && TestDatabase.jdbc()
                .queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA + ".durable_instance WHERE status = "
                        + "'done'", Long.class) == 10);

        // A row inserted by another node (no local wake-up): the poller's next poll finds it.
        long late = TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) VALUES ('unit', 1, 'only', '{\"n\": 99}',"
                + " 'default') RETURNING id", Long.class);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(late).equals("done"));
        assertThat(engine.inFlight()).isZero();
    }
}
