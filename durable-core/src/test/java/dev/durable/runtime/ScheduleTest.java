package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.durable.DurableClient;
import dev.durable.MissPolicy;
import dev.durable.Outcome;
import dev.durable.Schedule;
import dev.durable.StoredSchedule;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.support.EngineEvents;
import dev.durable.runtime.time.RecurringSchedules;
import dev.durable.runtime.time.ScheduleRepository;
import dev.durable.runtime.time.ScheduleTicks;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Recurring schedules: rows in {@code durable_schedule}, fired by every node running the machine, each tick once in
 * the cluster; missed ticks follow the miss policy; bad input is refused with nothing written.
 */
class ScheduleTest {

    record Report(String kind) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private static MachineDefinition report(Schedule... declared) {
        MachineDefinition.Builder<Report> builder = MachineDefinition.builder("report", 1, Report.class)
                .step("write", (state, ctx) -> Outcome.done(state == null ? "none" : state.kind()));
        for (Schedule schedule : declared) {
            builder.schedule(schedule);
        }
        return builder.build();
    }

    @Test
    void aScheduleEverySecondStartsOneInstancePerTickWithItsState() {
        DurableEngine engine = engines.start(report());
        StoredSchedule stored = engine.client().schedule("report", Schedule.cron("every-second", "* * * * * *"),
                new Report("daily"));
        assertThat(stored.declared()).isFalse();
        assertThat(stored.paused()).isFalse();
        assertThat(stored.stateJson()).isEqualTo("{\"kind\": \"daily\"}");

        await().atMost(Duration.ofSeconds(15)).until(() -> doneInstances() >= 3);
        List<String> keys = TestDatabase.jdbc().queryForList("SELECT unique_key FROM durable_it.durable_instance"
                + " ORDER BY unique_key", String.class);
        List<Instant> ticks = keys.stream().map(key -> Instant.parse(key.substring("schedule:every-second:".length())))
                .toList();
        for (int i = 1; i < ticks.size(); i++) {
            assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).as("consecutive ticks").isEqualTo(
                    Duration.ofSeconds(1));
        }
        assertThat(TestDatabase.jdbc().queryForList("SELECT DISTINCT result::text FROM durable_it.durable_instance"
                + " WHERE status = 'done'", String.class)).containsExactly("\"daily\"");
        assertThat(engine.client().findSchedule("every-second").orElseThrow().lastFiredAt()).isNotNull();
        assertThat(engine.stats().scheduledStarts()).isGreaterThanOrEqualTo(3);
    }

    /**
     * A tick a test puts a schedule at, with no other tick due until long after the test: an hourly one, put at the
     * start of the hour, met the next hour's tick when the test ran across the hour (two instances, CI at 23:00).
     */
    private static final String YEARLY = "0 0 0 1 1 *";

    @Test
    void twoNodesFiringOneTickTogetherStartOneInstance() throws Exception {
        DurableClient client = engines.clientOnly(report());
        client.schedule("report", Schedule.cron("race", YEARLY), null);
        TestDatabase.jdbc().update("UPDATE durable_it.durable_schedule SET next_fire_at"
                + " = date_trunc('year', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'");
        ScheduleRepository nodeA = repository();
        ScheduleRepository nodeB = repository();
        ScheduleRepository.DueSchedule seenByA = nodeA.due(List.of("report"), 10).get(0);
        ScheduleRepository.DueSchedule seenByB = nodeB.due(List.of("report"), 10).get(0);
        assertThat(seenByA.nextFireAt()).isEqualTo(seenByB.nextFireAt());

        // Both fire statements reach the schedule row while a third connection holds its lock; then it is released
        // and they run one after the other.
        CompletableFuture<Integer> a;
        CompletableFuture<Integer> b;
        ExecutorService nodes = Executors.newFixedThreadPool(2);
        try (Connection lock = RowLocks.openTransaction(TestDatabase.dataSource())) {
            try (PreparedStatement select = lock.prepareStatement(
                    "SELECT name FROM durable_it.durable_schedule WHERE name = 'race' FOR UPDATE")) {
                select.executeQuery().close();
            }
            a = CompletableFuture.supplyAsync(() -> fire(nodeA, seenByA), nodes);
            RowLocks.awaitLockWait("durable: fire schedule");
            b = CompletableFuture.supplyAsync(() -> fire(nodeB, seenByB), nodes);
            RowLocks.awaitLockWaits("durable: fire schedule", 2);
            lock.commit();
        } finally {
            nodes.shutdown();
        }
        assertThat(List.of(a.get(), b.get())).containsExactly(1, -1);
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance",
                Integer.class)).isEqualTo(1);
    }

    @Test
    void aTickThatAlreadyStartedAnInstanceNeverStartsASecondOneEvenAfterTheFirstFinished() {
        DurableClient client = engines.clientOnly(report());
        client.schedule("report", Schedule.cron("once", YEARLY), null);
        TestDatabase.jdbc().update("UPDATE durable_it.durable_schedule SET next_fire_at"
                + " = date_trunc('year', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'");
        ScheduleRepository schedules = repository();
        ScheduleRepository.DueSchedule due = schedules.due(List.of("report"), 10).get(0);
        assertThat(fire(schedules, due)).isEqualTo(1);
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET status = 'done'");

        // The schedule is put back at the same tick (restored from a backup, say): the tick's key still holds.
        TestDatabase.jdbc().update("UPDATE durable_it.durable_schedule SET next_fire_at"
                + " = date_trunc('year', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'");
        assertThat(fire(schedules, schedules.due(List.of("report"), 10).get(0))).isZero();
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance",
                Integer.class)).isEqualTo(1);
    }

    @Test
    void missedTicksFollowTheMissPolicy() {
        // Every first of January since 2016; none of them is within a minute of now, so all are missed.
        int years = ZonedDateTime.now(ZoneOffset.UTC).getYear() - 2016 + 1;
        assertThat(catchUp(MissPolicy.SKIP)).isEmpty();
        assertThat(catchUp(MissPolicy.RUN_ONCE)).containsExactly("schedule:yearly:2016-01-01T00:00:00Z");
        List<String> each = catchUp(MissPolicy.RUN_EACH);
        assertThat(each).hasSize(years).first().isEqualTo("schedule:yearly:2016-01-01T00:00:00Z");
        assertThat(each).last().isEqualTo("schedule:yearly:" + (2016 + years - 1) + "-01-01T00:00:00Z");
        assertThat(logs.at(Level.INFO)).anyMatch(line -> line.startsWith(
                "Schedule yearly missed its ticks from 2016-01-01T00:00:00Z"));
    }

    /** The unique keys of the instances a yearly schedule standing at 2016 starts when a node finds it now. */
    private List<String> catchUp(MissPolicy policy) {
        TestDatabase.clean();
        DurableClient client = engines.clientOnly(report());
        client.schedule("report", Schedule.cron("yearly", "0 0 0 1 1 *").missPolicy(policy), null);
        TestDatabase.jdbc().update("UPDATE durable_it.durable_schedule SET next_fire_at = '2016-01-01T00:00:00Z'");
        sweeper(report()).sweep();
        StoredSchedule after = client.findSchedule("yearly").orElseThrow();
        assertThat(after.nextFireAt()).isEqualTo(
                ZonedDateTime.now(ZoneOffset.UTC).withDayOfYear(1).toLocalDate().plusYears(1)
                        .atStartOfDay(ZoneOffset.UTC).toInstant());
        return TestDatabase.jdbc().queryForList("SELECT unique_key FROM durable_it.durable_instance ORDER BY id",
                String.class);
    }

    @Test
    void aPausedScheduleFiresNothingAndResumesAtItsNextTickAfterNow() {
        DurableClient client = engines.clientOnly(report());
        client.schedule("report", Schedule.cron("hourly", "0 0 * * * *"), null);
        assertThat(client.pauseSchedule("hourly")).isTrue();
        assertThat(client.pauseSchedule("hourly")).as("already paused").isFalse();
        TestDatabase.jdbc().update("UPDATE durable_it.durable_schedule SET next_fire_at = now() - interval '5 hours'");

        sweeper(report()).sweep();
        assertThat(TestDatabase.DATABASE.count()).isZero();

        assertThat(client.resumeSchedule("hourly")).isTrue();
        assertThat(client.resumeSchedule("hourly")).as("not paused").isFalse();
        StoredSchedule resumed = client.findSchedule("hourly").orElseThrow();
        assertThat(resumed.paused()).isFalse();
        assertThat(resumed.nextFireAt()).isAfter(Instant.now().minusSeconds(1))
                .isBeforeOrEqualTo(Instant.now().plus(Duration.ofHours(1)));
        sweeper(report()).sweep();
        assertThat(TestDatabase.DATABASE.count()).as("the ticks of the pause are skipped").isZero();

        assertThat(client.deleteSchedule("hourly")).isTrue();
        assertThat(client.deleteSchedule("hourly")).isFalse();
        assertThat(client.schedules()).isEmpty();
        assertThat(client.resumeSchedule("hourly")).isFalse();
    }

    @Test
    void writingAScheduleAgainKeepsItsPlaceUnlessItsTimingChanged() {
        DurableClient client = engines.clientOnly(report());
        Instant first = client.schedule("report", Schedule.cron("nightly", "0 0 2 * * *"), null).nextFireAt();
        client.pauseSchedule("nightly");
        TestDatabase.jdbc().update("UPDATE durable_it.durable_schedule SET next_fire_at = next_fire_at"
                + " - interval '1 day'");

        StoredSchedule same = client.schedule("report", Schedule.cron("nightly", "0 0 2 * * *"), new Report("x"));
        assertThat(same.nextFireAt()).isEqualTo(first.minus(Duration.ofDays(1)));
        assertThat(same.paused()).as("pausing is kept").isTrue();
        assertThat(same.stateJson()).isEqualTo("{\"kind\": \"x\"}");

        StoredSchedule moved = client.schedule("report", Schedule.cron("nightly", "0 0 3 * * *").zone("Asia/Tokyo"),
                null);
        assertThat(moved.zone()).isEqualTo("Asia/Tokyo");
        assertThat(moved.nextFireAt().atZone(java.time.ZoneId.of("Asia/Tokyo")).getHour()).isEqualTo(3);
        assertThat(moved.stateJson()).isNull();
    }

    @Test
    void badInputIsRefusedNamingTheValueAndNothingIsWritten() {
        DurableClient client = engines.clientOnly(report());
        assertThatThrownBy(() -> Schedule.cron("bad", "every day"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Cron expression 'every day' of schedule 'bad' is invalid");
        assertThatThrownBy(() -> Schedule.cron("bad", "0 0 2 * *"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'0 0 2 * *'");
        assertThatThrownBy(() -> Schedule.cron("feb30", "0 0 0 30 2 *"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cron expression '0 0 0 30 2 *' of schedule 'feb30' never fires");
        assertThatThrownBy(() -> Schedule.cron("bad", "@daily").zone("Mars/Olympus"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Zone 'Mars/Olympus' of schedule 'bad' is not a time zone");
        assertThatThrownBy(() -> Schedule.cron(" ", "@daily"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Schedule name ' ' must be non-blank");
        assertThatThrownBy(() -> Schedule.cron("x".repeat(201), "@daily"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.schedule("ghost", Schedule.cron("g", "@daily"), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ghost");
        assertThatThrownBy(() -> client.schedule("report", Schedule.cron("typed", "@daily"), "not a report"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Schedule 'typed'").hasMessageContaining("java.lang.String");
        assertThatThrownBy(() -> client.schedule("report", Schedule.cron("nul\0", "@daily"), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(client.schedules()).isEmpty();
        assertThatThrownBy(() -> MachineDefinition.builder("m", 1, Report.class)
                .step("s", (state, ctx) -> Outcome.done())
                .schedule(Schedule.cron("twice", "@daily"))
                .schedule(Schedule.cron("twice", "@hourly")))
                .isInstanceOf(MachineDefinitionException.class).hasMessageContaining("'twice'");
        MachineDefinition other = MachineDefinition.builder("other", 1, Report.class)
                .step("s", (state, ctx) -> Outcome.done()).schedule(Schedule.cron("shared", "@daily")).build();
        assertThatThrownBy(() -> MachineRegistry.of(report(Schedule.cron("shared", "@hourly")), other))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessageStartingWith("Schedule 'shared' is declared by machine");
    }

    @Test
    void aNodeWritesTheSchedulesItsMachinesDeclareAndDeletesTheOnesNoLongerDeclared() {
        DurableClient client = engines.clientOnly(report());
        client.schedule("report", Schedule.cron("by-api", "@hourly"), null);
        sweeper(report(Schedule.cron("declared-a", "@daily"), Schedule.cron("declared-b", "@weekly")
                .missPolicy(MissPolicy.SKIP).zone("Europe/Paris"))).sweep();
        assertThat(client.schedules()).extracting(StoredSchedule::name, StoredSchedule::declared)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("by-api", false),
                        org.assertj.core.groups.Tuple.tuple("declared-a", true),
                        org.assertj.core.groups.Tuple.tuple("declared-b", true));
        assertThat(client.findSchedule("declared-b").orElseThrow())
                .extracting(StoredSchedule::missPolicy, StoredSchedule::zone)
                .containsExactly(MissPolicy.SKIP, "Europe/Paris");

        // The next deploy declares only declared-a; the schedule created through the API is not the code's.
        sweeper(report(Schedule.cron("declared-a", "@daily"))).sweep();
        assertThat(client.schedules()).extracting(StoredSchedule::name).containsExactly("by-api", "declared-a");
        assertThat(logs.at(Level.INFO)).contains("Deleted schedules [declared-b]: their machines no longer declare"
                + " them");
    }

    @Test
    void aDueScheduleWhoseMachineNoLiveNodeRunsIsReportedAndWarnedOnce() {
        DurableEngine node = engines.start(report());
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_schedule (name, machine, cron, zone, miss_policy, next_fire_at)
                VALUES ('ghost-nightly', 'ghost', '0 0 2 * * *', 'UTC', 'run_once', now() - interval '1 hour')
                """);
        node.reapNow();
        node.reapNow();
        assertThat(node.strandedSchedules()).singleElement().satisfies(stranded -> {
            assertThat(stranded.name()).isEqualTo("ghost-nightly");
            assertThat(stranded.machine()).isEqualTo("ghost");
        });
        assertThat(logs.at(Level.WARN)).filteredOn(line -> line.contains("ghost-nightly")).singleElement().asString()
                .contains("no live node runs machine ghost (this node runs no version of ghost)");

        TestDatabase.jdbc().update("DELETE FROM durable_it.durable_schedule");
        node.reapNow();
        assertThat(node.strandedSchedules()).isEmpty();
        assertThat(logs.at(Level.INFO)).contains("Schedule ghost-nightly is no longer stranded");
    }

    private static ScheduleRepository repository() {
        return Repositories.onTestDatabase().schedules();
    }

    /** A node's schedule sweep, run on the test's thread. */
    private static RecurringSchedules sweeper(MachineDefinition... machines) {
        EngineSettings settings = EngineFixture.fastSettings("sweeper", machines).build();
        return new RecurringSchedules(repository(), MachineRegistry.of(machines),
                new EngineEvents(DurableListener.NONE), new QueueOwners(new EngineEvents(DurableListener.NONE)),
                settings.pollInterval(), settings.reaperBatchSize(), settings.scheduleMisfireThreshold());
    }

    private static int fire(ScheduleRepository schedules, ScheduleRepository.DueSchedule due) {
        ScheduleTicks.Plan plan = new ScheduleTicks(due.cron(), due.zone()).plan(due.nextFireAt(), due.now(),
                Duration.ofMinutes(1), due.missPolicy(), 100);
        List<String> keys = new ArrayList<>(plan.starts().stream()
                .map(tick -> RecurringSchedules.uniqueKey(due.name(), tick)).toList());
        return schedules.fire(due, plan.nextFireAt(), plan.lastStarted(), keys, 1, "write", "default");
    }

    private static int doneInstances() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance"
                + " WHERE status = 'done'", Integer.class);
    }
}
