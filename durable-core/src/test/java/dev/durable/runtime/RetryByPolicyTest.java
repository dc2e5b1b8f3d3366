package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.machine.StepFunction;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.test.process.ChildJvm;
import dev.durable.testing.CrashNode;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine applies retry policies (docs/DESIGN.md, "Retry policies"): a step that throws with no error handler is
 * retried in durable timers whose delays lie within the policy's bounds and are never cut short, across a restart of
 * its node too; a non-retryable error, an invalid outcome and an unreadable state fail at once; the policy gives up
 * after its attempts, crashes counted, with a reason that says so; a step's policy overrides its machine's, which
 * overrides the engine's; an error handler delegates to the policy. Every bound is read from the database: a retry's
 * delay is its {@code eligible_at} less the {@code now()} of the commit that wrote it (the history entry's {@code at}),
 * and a run is never early when the pick that claimed it ({@code updated_at} while it runs) is not before that.
 */
class RetryByPolicyTest {

    record Parcel(String id, String note) {
    }

    /** One run of a step, as the row stood while it ran. */
    record Run(int attempt, Instant pickedAt, Instant eligibleAt, String lastError, String node) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final List<Run> runs = new CopyOnWriteArrayList<>();

    /** Notes the run of a step from its row: its attempt, the pick's time, when it was due, the last error. */
    private void noteRun(long id, int attempt) {
        Map<String, Object> row = TestDatabase.jdbc().queryForMap("SELECT updated_at, eligible_at, last_error,"
                + " lease_owner FROM durable_it.durable_instance WHERE id = ?", id);
        runs.add(new Run(attempt, instant(row.get("updated_at")), instant(row.get("eligible_at")),
                (String) row.get("last_error"), (String) row.get("lease_owner")));
    }

    private static Instant instant(Object timestamp) {
        return ((Timestamp) timestamp).toInstant();
    }

    /** A machine of one step, {@code ship}, with this policy (none: the engine's) and no error handler. */
    private static MachineDefinition shipping(StepFunction<Parcel> ship, RetryPolicy policy) {
        return MachineDefinition.builder("shipping", 1, Parcel.class).step("ship", ship).retryPolicy(policy).build();
    }

    /** The retries' delays: each retry's eligible_at less the now() of its commit, from the history. */
    private List<Duration> retryDelays(long id) {
        List<HistoryEntry> retries = engines.clientOnly().history(id).stream()
                .filter(entry -> entry.event() == Event.RETRY).toList();
        List<Run> later = runs.stream().filter(run -> run.attempt() > 0).toList();
        assertThat(later).hasSize(retries.size());
        return IntStream.range(0, retries.size())
                .mapToObj(k -> Duration.between(retries.get(k).at(), later.get(k).eligibleAt())).toList();
    }

    @Test
    void aStepThatThrowsWithNoErrorHandlerFollowsThePolicyWithinItsBoundsAndNeverEarly() {
        // 100 ms doubling, at most 300 ms, jitter 40 ms grown with the delay (Spring's ExponentialBackOff): the
        // delays after attempts 0, 1 and 2 lie in [100, 140], [120, 280] and [180, 300] ms.
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(4).delay(Duration.ofMillis(100)).multiplier(2)
                .maxDelay(Duration.ofMillis(300)).jitter(Duration.ofMillis(40)).build();
        long id = engines.start(shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            if (ctx.attempt() < 3) {
                throw new IllegalStateException("carrier down at attempt " + ctx.attempt());
            }
            return Outcome.done("shipped");
        }, policy)).client().start("shipping", new Parcel("p1", "")).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(runs).extracting(Run::attempt).containsExactly(0, 1, 2, 3);
        List<Duration> delays = retryDelays(id);
        assertThat(delays.get(0)).isBetween(Duration.ofMillis(100), Duration.ofMillis(140));
        assertThat(delays.get(1)).isBetween(Duration.ofMillis(120), Duration.ofMillis(280));
        assertThat(delays.get(2)).isBetween(Duration.ofMillis(180), Duration.ofMillis(300));
        for (Run run : runs.subList(1, 4)) {
            assertThat(run.pickedAt()).as("attempt %d is picked no earlier than it is due", run.attempt())
                    .isAfterOrEqualTo(run.eligibleAt());
            assertThat(run.lastError()).as("the failure before attempt %d is in last_error", run.attempt())
                    .isEqualTo("java.lang.IllegalStateException: carrier down at attempt " + (run.attempt() - 1));
        }
        assertThat(engines.clientOnly().history(id)).extracting(HistoryEntry::event, HistoryEntry::attempt,
                HistoryEntry::error).containsExactly(
                        Tuple.tuple(Event.RETRY, 0,
                                "java.lang.IllegalStateException: carrier down at attempt 0"),
                        Tuple.tuple(Event.RETRY, 1,
                                "java.lang.IllegalStateException: carrier down at attempt 1"),
                        Tuple.tuple(Event.RETRY, 2,
                                "java.lang.IllegalStateException: carrier down at attempt 2"),
                        Tuple.tuple(Event.DONE, 3, null));
    }

    @Test
    void aRetryWaitingForItsDelaySurvivesARestartOfItsNodeAndRunsNoEarlier() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(1500)).jitter(Duration.ZERO)
                .build();
        MachineDefinition machine = shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            if (ctx.attempt() == 0) {
                throw new IllegalStateException("carrier down");
            }
            return Outcome.done("shipped");
        }, policy);
        DurableEngine first = engines.start("first-node", UnaryOperator.identity(), machine);
        long id = first.client().start("shipping", new Parcel("p1", "")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> Integer.valueOf(1).equals(TestDatabase.row(id)
                .get("attempt")));

        first.close();
        // The engine stopped while the retry waits: nothing of it was held in memory, and only the row tells when.
        assertThat(TestDatabase.jdbc().queryForObject("SELECT now() < eligible_at FROM durable_it.durable_instance"
                + " WHERE id = ?", Boolean.class, id)).as("the node stopped before the retry was due").isTrue();
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");
        engines.start("restarted-node", UnaryOperator.identity(), machine);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(runs).extracting(Run::attempt).containsExactly(0, 1);
        Run retried = runs.get(1);
        assertThat(retried.node()).startsWith("restarted-node:");
        assertThat(retried.pickedAt()).isAfterOrEqualTo(retried.eligibleAt());
        assertThat(retryDelays(id)).containsExactly(Duration.ofMillis(1500));
    }

    @Test
    void aNonRetryableErrorAndItsSubclassesFailAtOnce() {
        RetryPolicy policy = RetryPolicy.builder().delay(Duration.ofMillis(10))
                .nonRetryable(IllegalArgumentException.class).build();
        long id = engines.start(shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            throw new NumberFormatException("parcel id 'p1' is not a number");
        }, policy)).client().start("shipping", new Parcel("p1", "")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(runs).extracting(Run::attempt).containsExactly(0);
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 0).containsEntry("last_error",
                "java.lang.NumberFormatException: parcel id 'p1' is not a number; not retried: the retry policy"
                        + " declares java.lang.IllegalArgumentException non-retryable");
        assertThat(engines.clientOnly().history(id)).extracting(HistoryEntry::event).containsExactly(Event.STOP);
    }

    @Test
    void afterItsAttemptsThePolicyGivesUpAndTheInstanceFailsSayingSo() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(10)).jitter(Duration.ZERO)
                .build();
        long id = engines.start(shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            throw new IllegalStateException("carrier down at attempt " + ctx.attempt());
        }, policy)).client().start("shipping", new Parcel("p1", "")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(runs).extracting(Run::attempt).containsExactly(0, 1, 2);
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 2).containsEntry("last_error",
                "retry policy gave up after 3 attempts (at most 3); last error: java.lang.IllegalStateException:"
                        + " carrier down at attempt 2");
        assertThat(engines.clientOnly().history(id)).extracting(HistoryEntry::event)
                .containsExactly(Event.RETRY, Event.RETRY, Event.STOP);
    }

    @Test
    void withRetryPolicyNoneAThrowingStepFailsAtOnceWithTheExceptionAlone() {
        long id = engines.start(shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            throw new IllegalStateException("carrier down");
        }, RetryPolicy.none())).client().start("shipping", new Parcel("p1", "")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(runs).hasSize(1);
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 0)
                .containsEntry("last_error", "java.lang.IllegalStateException: carrier down");
    }

    @Test
    void byDefaultAThrowingStepIsRetriedAfterTheDefaultPolicysFirstDelay() {
        // No policy anywhere: the engine's default, RetryPolicy.defaults(), whose first delay is 1 s plus up to
        // 500 ms of jitter. Read from the row as soon as the retry is committed; the test does not wait for it.
        DurableEngine engine = engines.start(MachineDefinition.builder("plain", 1, Parcel.class)
                .step("ship", (parcel, ctx) -> {
                    throw new IllegalStateException("carrier down");
                })
                .build());
        assertThat(engine.settings().retryPolicy()).isEqualTo(RetryPolicy.defaults());
        long id = engine.client().start("plain", new Parcel("p1", "")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> Integer.valueOf(1).equals(TestDatabase.row(id)
                .get("attempt")));
        // updated_at is the now() of the retry's commit, until the retry is picked.
        Map<String, Object> row = TestDatabase.jdbc().queryForMap("SELECT status::text AS status, last_error,"
                + " round(extract(epoch FROM eligible_at - updated_at) * 1000)::bigint AS delay_ms"
                + " FROM durable_it.durable_instance WHERE id = ?", id);
        assertThat(row).containsEntry("status", "runnable")
                .containsEntry("last_error", "java.lang.IllegalStateException: carrier down");
        assertThat((Long) row.get("delay_ms")).isBetween(1000L, 1500L);
    }

    @Test
    void aStepsPolicyOverridesItsMachinesWhichOverridesTheEngines() {
        StepFunction<Parcel> failing = (parcel, ctx) -> {
            throw new IllegalStateException(parcel.id() + " failed");
        };
        RetryPolicy fast = RetryPolicy.builder().delay(Duration.ofMillis(10)).jitter(Duration.ZERO).build();
        MachineDefinition layered = MachineDefinition.builder("layered", 1, Parcel.class)
                .initialStep("route")
                .step("route", (parcel, ctx) -> Outcome.next(parcel.note(), parcel))
                .step("own", failing)
                .step("inherited", failing)
                .retryPolicy(fast.toBuilder().maxAttempts(3).build())
                .retryPolicy("own", fast.toBuilder().maxAttempts(4).build())
                .build();
        MachineDefinition plain = MachineDefinition.builder("plain", 1, Parcel.class).step("work", failing).build();
        DurableEngine engine = engines.start("test-node",
                settings -> settings.retryPolicy(fast.toBuilder().maxAttempts(2).build()), layered, plain);

        long own = engine.client().start("layered", new Parcel("own", "own")).id();
        long inherited = engine.client().start("layered", new Parcel("inherited", "inherited")).id();
        long engineWide = engine.client().start("plain", new Parcel("engine-wide", "")).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> List.of(own, inherited, engineWide).stream()
                .allMatch(id -> TestDatabase.status(id).equals("failed")));
        assertThat(TestDatabase.row(own).get("last_error")).isEqualTo("retry policy gave up after 4 attempts (at"
                + " most 4); last error: java.lang.IllegalStateException: own failed");
        assertThat(TestDatabase.row(inherited).get("last_error")).isEqualTo("retry policy gave up after 3 attempts"
                + " (at most 3); last error: java.lang.IllegalStateException: inherited failed");
        assertThat(TestDatabase.row(engineWide).get("last_error")).isEqualTo("retry policy gave up after 2 attempts"
                + " (at most 2); last error: java.lang.IllegalStateException: engine-wide failed");
    }

    @Test
    void anErrorHandlerDecidesWhatItWantsAndDelegatesTheRestToThePolicy() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(10)).jitter(Duration.ZERO)
                .nonRetryable(UnsupportedOperationException.class).build();
        MachineDefinition machine = MachineDefinition.builder("handled", 1, Parcel.class)
                .step("ship", (parcel, ctx) -> {
                    noteRun(ctx.instanceId(), ctx.attempt());
                    switch (parcel.id()) {
                        case "refused" -> throw new IllegalArgumentException("no such address");
                        case "unsupported" -> throw new UnsupportedOperationException("no carrier goes there");
                        case "flaky" -> {
                            if (ctx.attempt() < 2) {
                                throw new IllegalStateException("carrier down");
                            }
                            return Outcome.done(parcel.note());
                        }
                        default -> throw new IllegalStateException("carrier down for good");
                    }
                })
                .errorHandler((error, parcel, ctx) -> error instanceof IllegalArgumentException
                        ? Outcome.stop("refused: " + error.getMessage())
                        : Outcome.retryByPolicy(new Parcel(parcel.id(), parcel.note() + "+" + ctx.attempt())))
                .retryPolicy(policy)
                .build();
        DurableEngine engine = engines.start(machine);
        long refused = engine.client().start("handled", new Parcel("refused", "")).id();
        long unsupported = engine.client().start("handled", new Parcel("unsupported", "")).id();
        long flaky = engine.client().start("handled", new Parcel("flaky", "")).id();
        long down = engine.client().start("handled", new Parcel("down", "")).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> List.of(refused, unsupported, flaky, down).stream()
                .allMatch(id -> List.of("done", "failed").contains(TestDatabase.status(id))));
        assertThat(TestDatabase.row(refused)).containsEntry("status", "failed").containsEntry("attempt", 0)
                .containsEntry("last_error", "refused: no such address");
        assertThat(TestDatabase.row(unsupported)).containsEntry("status", "failed").containsEntry("attempt", 0)
                .containsEntry("last_error", "java.lang.UnsupportedOperationException: no carrier goes there; not"
                        + " retried: the retry policy declares java.lang.UnsupportedOperationException non-retryable");
        // The delegating handler's state is stored with each retry, as with any retry.
        assertThat(TestDatabase.row(flaky)).containsEntry("status", "done").containsEntry("attempt", 2)
                .containsEntry("result", "\"+0+1\"");
        assertThat(engines.clientOnly().history(flaky)).extracting(HistoryEntry::event, HistoryEntry::error)
                .containsExactly(Tuple.tuple(Event.RETRY,
                                "java.lang.IllegalStateException: carrier down"),
                        Tuple.tuple(Event.RETRY,
                                "java.lang.IllegalStateException: carrier down"),
                        Tuple.tuple(Event.DONE, null));
        assertThat(TestDatabase.row(down)).containsEntry("status", "failed").containsEntry("attempt", 2)
                .containsEntry("last_error", "retry policy gave up after 3 attempts (at most 3); last error:"
                        + " java.lang.IllegalStateException: carrier down for good");
    }

    @Test
    void aTimeoutIsRetriedButAnInvalidOutcomeFailsAtOnceWhateverThePolicy() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(5).delay(Duration.ofMillis(10)).jitter(Duration.ZERO)
                .build();
        MachineDefinition machine = MachineDefinition.builder("slow", 1, Parcel.class)
                .step("ship", (parcel, ctx) -> {
                    noteRun(ctx.instanceId(), ctx.attempt());
                    if (parcel.id().equals("lost")) {
                        return Outcome.next("nowhere", parcel);
                    }
                    if (ctx.attempt() == 0) {
                        Thread.sleep(10_000);
                    }
                    return Outcome.done("shipped");
                }, Duration.ofMillis(200))
                .retryPolicy(policy)
                .build();
        DurableEngine engine = engines.start(machine);
        long slow = engine.client().start("slow", new Parcel("slow", "")).id();
        long lost = engine.client().start("slow", new Parcel("lost", "")).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(slow).equals("done")
                && TestDatabase.status(lost).equals("failed"));
        assertThat(TestDatabase.row(slow)).containsEntry("attempt", 1);
        assertThat(engines.clientOnly().history(slow)).extracting(HistoryEntry::event)
                .containsExactly(Event.RETRY, Event.DONE);
        assertThat(engines.clientOnly().history(slow).get(0).error())
                .startsWith("dev.durable.machine.StepFailureException$Timeout: Step 'ship' of instance " + slow
                        + " ran longer than its timeout of PT0.2S");
        assertThat(TestDatabase.row(lost)).containsEntry("attempt", 0);
        assertThat((String) TestDatabase.row(lost).get("last_error"))
                .startsWith("dev.durable.machine.StepFailureException$InvalidOutcome: Step 'ship' of slow v1")
                .contains("returned next('nowhere')");
    }

    @Test
    void anUnreadableStateFailsAtOnceWhateverThePolicy() {
        MachineDefinition machine = shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            return Outcome.done("shipped");
        }, RetryPolicy.builder().delay(Duration.ofMillis(10)).build());
        long id = engines.clientOnly(machine).start("shipping", new Parcel("p1", "")).id();
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET state = '[1, 2]' WHERE id = ?", id);

        engines.start(machine);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(runs).isEmpty();
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 0);
        assertThat((String) TestDatabase.row(id).get("last_error"))
                .startsWith("dev.durable.machine.StepFailureException$UnreadableState: The state of instance " + id);
    }

    @Test
    void aStepThatAsksForARetryByItsPolicyIsRetriedWithItsDelaysUntilItGivesUp() {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(10)).jitter(Duration.ZERO)
                .build();
        long id = engines.start(shipping((parcel, ctx) -> {
            noteRun(ctx.instanceId(), ctx.attempt());
            return Outcome.retryByPolicy(new Parcel(parcel.id(), parcel.note() + ctx.attempt()));
        }, policy)).client().start("shipping", new Parcel("p1", "")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(runs).extracting(Run::attempt).containsExactly(0, 1, 2);
        assertThat(TestDatabase.row(id)).containsEntry("last_error", "retry policy gave up after 3 attempts (at"
                + " most 3)");
        assertThat((String) TestDatabase.row(id).get("state")).contains("\"note\": \"01\"");
    }

    /**
     * A crash spends an attempt: the node dies in the middle of the step, another node's reaper returns the row with
     * attempt 1, and the step that then throws has used the two runs its policy allows.
     */
    @Test
    void aCrashSpendsAnAttemptOfThePolicy() throws Exception {
        MachineDefinition survivor = MachineDefinition.builder(CrashNode.MACHINE, 1, Object.class)
                .step("work", (state, ctx) -> {
                    noteRun(ctx.instanceId(), ctx.attempt());
                    throw new IllegalStateException("still failing");
                })
                .retryPolicy(RetryPolicy.builder().maxAttempts(2).delay(Duration.ofMillis(10)).build())
                .build();
        long id = engines.clientOnly(survivor).start(CrashNode.MACHINE, null).id();
        TestPostgres postgres = TestPostgres.get();
        try (ChildJvm node = ChildJvm.start(CrashNode.class, postgres.jdbcUrl(), postgres.username(),
                postgres.password(), "doomed", "1000", "300")) {
            assertThat(node.awaitLineStartingWith("STARTED", Duration.ofSeconds(60))).isEqualTo("STARTED " + id + " 0");
            node.kill();
        }

        engines.start("survivor", UnaryOperator.identity(), survivor);

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(runs).extracting(Run::attempt).containsExactly(1);
        assertThat(TestDatabase.row(id)).containsEntry("last_error", "retry policy gave up after 2 attempts (at most"
                + " 2); last error: java.lang.IllegalStateException: still failing");
        assertThat(engines.clientOnly().history(id)).extracting(HistoryEntry::event)
                .containsExactly(Event.REAP, Event.STOP);
    }
}
