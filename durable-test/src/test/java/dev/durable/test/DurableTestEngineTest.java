package dev.durable.test;

import static dev.durable.test.DurableAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.Child;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.Schedule;
import dev.durable.SignalResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.EngineSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kit's acceptance (issue 30): on real PostgreSQL, a machine's days and weeks are driven to completion in under a
 * second of wall time each, the time measured from the first start to the last assertion of the run.
 */
class DurableTestEngineTest {

    private static final Duration WALL_TIME_BOUND = Duration.ofSeconds(1);

    record Payment(int amount) {
    }

    record Approval(String order) {
    }

    record Report(String name) {
    }

    record Fan(int children) {
    }

    record Reminder(Instant at) {
    }

    private final List<DurableTestEngine> kits = new ArrayList<>();

    /**
     * The first engine of a JVM loads and compiles the classes of a step's path (a second or more on a loaded
     * machine): a one-step machine is driven once first, so that the bound measures the drives, not class loading.
     */
    @BeforeAll
    static void warmUp() {
        KitDatabase.clean();
        MachineDefinition once = MachineDefinition.builder("once", 1, Report.class)
                .initialStep("run").step("run", (state, ctx) -> Outcome.done("ran")).build();
        try (DurableTestEngine durable = DurableTestEngine.builder(KitDatabase.DATABASE.dataSource(),
                MachineRegistry.of(once)).settings(EngineSettings.builder().schema(KitDatabase.SCHEMA).build())
                .start()) {
            long id = durable.client().start("once", new Report("warm-up")).id();
            durable.runDue().advance(Duration.ofMinutes(1));
            assertThat(durable.instance(id)).isDone();
        }
    }

    @BeforeEach
    void clean() {
        KitDatabase.clean();
    }

    @AfterEach
    void close() {
        kits.forEach(DurableTestEngine::close);
    }

    private DurableTestEngine kit(MachineDefinition... machines) {
        DurableTestEngine kit = DurableTestEngine.builder(KitDatabase.DATABASE.dataSource(), MachineRegistry.of(machines))
                .settings(EngineSettings.builder().schema(KitDatabase.SCHEMA).build()).start();
        kits.add(kit);
        return kit;
    }

    /** Asserts the bound, and prints the figure for the closing note. */
    private static void assertWallTime(long started) {
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        System.out.println("durable-test wall time: " + took.toMillis() + " ms");
        assertThat(took).isLessThan(WALL_TIME_BOUND);
    }

    @Test
    void runDueFailsNamingTheInstancesStillMovingPastItsBound() {
        MachineDefinition loop = MachineDefinition.builder("loop", 1, Report.class)
                .initialStep("spin")
                .step("spin", (state, ctx) -> Outcome.next("spin", state))
                .build();
        DurableTestEngine durable = DurableTestEngine.builder(KitDatabase.DATABASE.dataSource(),
                MachineRegistry.of(loop)).settings(EngineSettings.builder().schema(KitDatabase.SCHEMA).build())
                .maxRounds(20).start();
        kits.add(durable);
        long id = durable.client().start("loop", new Report("forever")).id();

        assertThatThrownBy(durable::runDue).isInstanceOf(AssertionError.class)
                .hasMessageContaining("still busy after 20 rounds").hasMessageContaining(id + " loop spin");
    }

    @Test
    void runOneStepRunsTheDueStepOfThatInstanceOnly() {
        MachineDefinition pipeline = MachineDefinition.builder("pipeline", 1, Report.class)
                .initialStep("fetch")
                .step("fetch", (state, ctx) -> Outcome.next("write", state))
                .step("write", (state, ctx) -> Outcome.done("written " + state.name()))
                .build();
        DurableTestEngine durable = kit(pipeline, approval());
        long first = durable.client().start("pipeline", new Report("first")).id();
        long second = durable.client().start("pipeline", new Report("second")).id();
        assertThat(durable.instance(first)).as("nothing runs by itself").isRunnable().isAt("fetch").hasHistory();

        assertThat(durable.runOneStep(first)).isRunnable().isAt("write").hasHistory(Event.NEXT);
        assertThat(durable.instance(second)).isRunnable().isAt("fetch").hasHistory();
        assertThat(durable.runOneStep(first)).isDone().hasResult("written first").hasHistory(Event.NEXT, Event.DONE);
        assertThat(durable.instance(second)).isRunnable().isAt("fetch").hasHistory();

        assertThatThrownBy(() -> durable.runOneStep(first)).isInstanceOf(IllegalStateException.class)
                .hasMessage("durable-test: instance " + first + " (pipeline) has no step due now: it is done");
        long waiting = durable.client().start("approval", new Approval("o-3")).id();
        durable.runOneStep(waiting);
        Instant deadline = durable.instance(waiting).deadline();
        assertThatThrownBy(() -> durable.runOneStep(waiting)).isInstanceOf(IllegalStateException.class)
                .hasMessage("durable-test: instance " + waiting + " (approval) has no step due now: it awaits signal"
                        + " 'approved' at step 'wait' until " + deadline);
        durable.advanceTo(deadline);
        assertThat(durable.instance(waiting)).isDone().hasResult("timed out");
    }

    @Test
    void runOneStepFiresTheInstancesDueDeadlineFirst() {
        DurableTestEngine durable = kit(approval());
        long id = durable.client().start("approval", new Approval("o-4")).id();
        Instant deadline = durable.runOneStep(id).deadline();
        assertThat(durable.instance(id)).waitsFor("approved", deadline);

        // the deadline passes while nothing runs (a clock moved by hand): only the kit's run fires it
        KitDatabase.jdbc().update("UPDATE " + KitDatabase.SCHEMA + ".durable_test_clock SET shift = shift"
                + " + interval '25 hours'");
        assertThat(durable.instance(id)).waitsFor("approved", deadline);

        assertThat(durable.runOneStep(id)).isDone().hasResult("timed out").hasHistory(Event.AWAIT, Event.DONE);
    }

    /**
     * An instant a step computes from durable's time (here one the test took from the moved clock) is kept as given:
     * the deadline and the timer fall three days after durable's time, not three days plus the clock's shift.
     */
    @Test
    void anInstantFromDurablesTimeIsWrittenAsGiven() {
        MachineDefinition reminder = MachineDefinition.builder("reminder", 1, Reminder.class)
                .initialStep("wait")
                .step("wait", (state, ctx) -> ctx.timedOut()
                        ? Outcome.nextAt("ring", state, state.at().plus(Duration.ofDays(1)))
                        : Outcome.awaitUntil("called", state, state.at()))
                .step("ring", (state, ctx) -> Outcome.done("rang"))
                .build();
        DurableTestEngine durable = kit(reminder);
        durable.advance(Duration.ofDays(10));
        Instant due = durable.now().plus(Duration.ofDays(3));

        long id = durable.client().start("reminder", new Reminder(due)).id();
        durable.runDue();
        assertThat(durable.instance(id)).waitsFor("called", due);

        durable.advance(Duration.between(durable.now(), due).minusMinutes(1));
        assertThat(durable.instance(id)).waitsFor("called", due);
        durable.advanceTo(due);
        assertThat(durable.instance(id)).isRunnable().isAt("ring");
        assertThat(durable.instance(id).instance().eligibleAt()).isEqualTo(due.plus(Duration.ofDays(1)));

        durable.advanceTo(due.plus(Duration.ofDays(1)));
        assertThat(durable.instance(id)).isDone().hasResult("rang").hasHistory(Event.AWAIT, Event.NEXT, Event.DONE);
    }

    @Test
    void theKitRefusesASchemaThatALiveNodeUses() {
        KitDatabase.jdbc().update("INSERT INTO " + KitDatabase.SCHEMA + ".durable_node (id, seen_at) VALUES"
                + " ('orders-prod:1', now() - interval '1 second'), ('orders-prod:gone', now() - interval '1 hour'),"
                + " ('durable-test:killed', now())");

        assertThatThrownBy(() -> kit(approval())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refuses schema 'durable_kit'").hasMessageContaining("orders-prod:1")
                .hasMessageNotContaining("orders-prod:gone").hasMessageNotContaining("durable-test:killed");

        KitDatabase.jdbc().update("DELETE FROM " + KitDatabase.SCHEMA + ".durable_node WHERE id = 'orders-prod:1'");
        assertThat(kit(approval()).engine().nodeId()).startsWith(DurableTestEngine.NODE_NAME + ":");
    }

    @Test
    void aSevenDayRetryDelayRunsInMilliseconds() {
        MachineDefinition charge = MachineDefinition.builder("charge", 1, Payment.class)
                .initialStep("charge")
                .step("charge", (payment, ctx) -> ctx.attempt() == 0
                        ? Outcome.retry(payment, Duration.ofDays(7))
                        : Outcome.done("charged " + payment.amount() + " at attempt " + ctx.attempt()))
                .build();
        DurableTestEngine durable = kit(charge);
        long started = System.nanoTime();
        Instant t0 = durable.now();

        long id = durable.client().start("charge", new Payment(42)).id();
        durable.runDue();
        assertThat(durable.instance(id)).isRunnable().isAt("charge").hasHistory(Event.RETRY);
        assertThat(durable.instance(id).instance().eligibleAt()).isBetween(t0.plus(Duration.ofDays(7)),
                durable.now().plus(Duration.ofDays(7)));

        durable.advance(Duration.ofDays(6));
        assertThat(durable.instance(id)).isRunnable().hasHistory(Event.RETRY);

        durable.advance(Duration.ofDays(1).plusMinutes(1));
        assertThat(durable.instance(id)).isDone().hasResult("charged 42 at attempt 1")
                .hasHistory(Event.RETRY, Event.DONE);
        assertThat(durable.now()).isAfter(t0.plus(Duration.ofDays(7)));
        assertWallTime(started);
    }

    private static MachineDefinition approval() {
        return MachineDefinition.builder("approval", 1, Approval.class)
                .initialStep("wait")
                .step("wait", (approval, ctx) -> {
                    if (ctx.awaited("approved").isPresent()) {
                        return Outcome.done("approved");
                    }
                    if (ctx.timedOut()) {
                        return Outcome.done("timed out");
                    }
                    return Outcome.await("approved", approval, Duration.ofHours(24));
                })
                .build();
    }

    @Test
    void aSignalBeforeTheTwentyFourHourDeadlineWins() {
        DurableTestEngine durable = kit(approval());
        long started = System.nanoTime();
        Instant t0 = durable.now();

        long id = durable.client().start("approval", new Approval("o-1")).id();
        durable.runDue();
        TestInstance waiting = durable.instance(id);
        assertThat(waiting).waitsFor("approved", waiting.deadline());
        assertThat(waiting.deadline()).isBetween(t0.plus(Duration.ofHours(24)), durable.now().plus(Duration.ofHours(24)));

        durable.advance(Duration.ofHours(23).plusMinutes(59));
        assertThat(durable.instance(id)).waitsFor("approved", waiting.deadline());
        assertThat(durable.signal(id, "approved", null).isDelivered()).isTrue();
        durable.advance(Duration.ofHours(2));

        assertThat(durable.instance(id)).isDone().hasResult("approved").hasHistory(Event.AWAIT, Event.DONE);
        assertWallTime(started);
    }

    @Test
    void theTwentyFourHourDeadlineBeforeTheSignalWins() {
        DurableTestEngine durable = kit(approval());
        long started = System.nanoTime();

        long id = durable.client().start("approval", new Approval("o-2")).id();
        durable.runDue();
        Instant deadline = durable.instance(id).deadline();
        durable.advanceTo(deadline.plusMillis(1));

        assertThat(durable.instance(id)).isDone().hasResult("timed out").hasHistory(Event.AWAIT, Event.DONE);
        SignalResult late = durable.signal(id, "approved", null);
        assertThat(late.isRefused()).as(late.toString()).isTrue();
        assertThat(durable.instance(id)).isDone().hasResult("timed out");
        assertWallTime(started);
    }

    @Test
    void aDailyScheduleRunsSevenTimesInASimulatedWeek() {
        MachineDefinition report = MachineDefinition.builder("report", 1, Report.class)
                .initialStep("write")
                .step("write", (state, ctx) -> Outcome.done("written"))
                .schedule(Schedule.cron("daily", "0 0 6 * * *"))
                .build();
        DurableTestEngine durable = kit(report);
        long started = System.nanoTime();

        durable.runDue();
        durable.advance(Duration.ofDays(7));

        List<String> runs = KitDatabase.jdbc().queryForList("SELECT status::text FROM " + KitDatabase.SCHEMA
                + ".durable_instance WHERE machine = 'report' ORDER BY id", String.class);
        assertThat(runs).hasSize(7).containsOnly("done");
        assertWallTime(started);
    }

    @Test
    void aParentJoinsFiftyChildrenWithAll() {
        MachineDefinition child = MachineDefinition.builder("child", 1, Integer.class)
                .initialStep("work")
                .step("work", (n, ctx) -> Outcome.done(n * 2))
                .build();
        MachineDefinition parent = MachineDefinition.builder("parent", 1, Fan.class)
                .initialStep("fan")
                .step("fan", (fan, ctx) -> ctx.children().isEmpty()
                        ? Outcome.awaitChildren(fan, Outcome.Join.ALL).startingChildren(
                                IntStream.range(0, fan.children()).mapToObj(i -> Child.of("child", i)).toList())
                        : Outcome.done(ctx.children().stream().mapToInt(c -> c.result(Integer.class)).sum()))
                .build();
        DurableTestEngine durable = kit(parent, child);
        long started = System.nanoTime();

        long id = durable.client().start("parent", new Fan(50)).id();
        durable.runDue();

        assertThat(durable.instance(id)).isDone().hasResult(2 * (49 * 50 / 2)).hasChildren(50, InstanceStatus.DONE)
                .hasHistory(Event.AWAIT, Event.DONE);
        assertWallTime(started);
    }
}
