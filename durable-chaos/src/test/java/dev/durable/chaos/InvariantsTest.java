package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checks catch what they claim to: a consistent history passes every check, and each planted violation (a
 * transition committed twice, a fenced claim's outcome applied, overlapping committed executions of one partition
 * key, a lost result, a signal seen twice or from the duplicate) fails the check that is about it. Synthetic rows in
 * a real PostgreSQL, the harness's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InvariantsTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final long PID = 100;

    private final JsonMapper json = JsonMapper.builder().build();
    private InvariantsDatabase database;
    private HikariDataSource data;
    private JdbcTemplate jdbc;
    private long nextToken;

    @BeforeAll
    void startPostgres() throws Exception {
        database = InvariantsDatabase.start("invariants-test", EffectLog.DDL, Workload.DDL);
        data = database.dataSource();
        jdbc = database.jdbc();
    }

    @AfterAll
    void stopPostgres() throws Exception {
        database.close();
    }

    @BeforeEach
    void clean() {
        jdbc.execute("TRUNCATE durable.durable_signal, durable.durable_instance, chaos.effect, chaos.plan, "
                + "chaos.delivery RESTART IDENTITY");
        nextToken = 1;
        for (int second = 0; second < 20; second++) {
            tick(T0.plusSeconds(second));
        }
    }

    /** An instance the every-second schedule started for {@code tick}, done. */
    private void tick(Instant tick) {
        jdbc.update("INSERT INTO durable.durable_instance (machine, machine_version, step, status, queue, unique_key)"
                + " VALUES (?, 1, 'tick', 'done', ?, ?)", ChaosMachine.TICKER, ChaosMachine.QUEUE,
                "schedule:" + ChaosMachine.TICK_SCHEDULE + ":" + tick);
    }

    @Test
    void aScheduleTickWithoutAnInstanceOrWithTwoFails() throws Exception {
        assertThat(failed(check(witness()))).isEmpty();
        assertThat(check(witness()).counts()).containsEntry("schedule_ticks", 20L);

        tick(T0.plusSeconds(7));
        assertThat(failed(check(witness()))).containsExactly("schedule-one-per-tick");

        clean();
        jdbc.update("DELETE FROM durable.durable_instance WHERE unique_key LIKE '%T00:00:07Z'");
        Invariants.Report report = check(witness());
        assertThat(failed(report)).containsExactly("schedule-one-per-tick");
        assertThat(report.checks()).filteredOn(check -> check.name().equals("schedule-one-per-tick"))
                .singleElement().satisfies(check -> assertThat(check.evidence()).containsExactly(
                        "no instance for the ticks after 2026-01-01T00:00:06Z until 2026-01-01T00:00:08Z"));
    }

    @Test
    void aConsistentRunPassesEveryCheck() throws Exception {
        instance("key-1", 0, history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done"));
        instance("key-1", 10_000, history("prepare:next", "reserve:next", "charge:next",
                "wait:await", "wait:next", "finish:done"));

        Invariants.Report report = check(witness());

        assertThat(report.checks()).allSatisfy(check -> assertThat(check.passed()).as(check.describe()).isTrue());
        assertThat(report.counts()).containsEntry("executions", 12L).containsEntry("duplicate_executions", 0L);
    }

    /** Executions are 100 ms apart and last 50 ms: prepare ends 50 ms before reserve starts. */
    @Test
    void aTimerWhoseStepStartedBeforeItWasDueFails() throws Exception {
        List<String> path = List.of("prepare:next", "reserve:next", "charge:next", "wait:await", "wait:next",
                "finish:done");
        instance("key-1", 0, history(path.toArray(String[]::new)), 40, 0, 0);
        assertThat(failed(check(witness()))).isEmpty();

        clean();
        instance("key-1", 0, history(path.toArray(String[]::new)), 200, 0, 0);
        assertThat(failed(check(witness()))).containsExactly("timers-never-early");
    }

    /**
     * wait:await is the fourth execution (300-350 ms): with a 1,000 ms deadline it fires at 1,350 ms at the
     * earliest. A time-out with the signal acknowledged after that passes; one acknowledged before fails.
     */
    @Test
    void aDeadlineThatFiredAfterTheSignalWasAcknowledgedFails() throws Exception {
        String[] timedOut = {"prepare:next", "reserve:next", "charge:next", "wait:await", "wait:timeout", "wait:next",
                "finish:done"};
        instance("key-1", 0, history(timedOut), 0, 1000, 1400);
        Invariants.Report fine = check(witness());
        assertThat(failed(fine)).isEmpty();
        assertThat(fine.counts()).containsEntry("deadlines", 1L).containsEntry("deadlines_fired", 1L);

        clean();
        instance("key-1", 0, history(timedOut), 0, 1000, 900);
        assertThat(failed(check(witness()))).containsExactly("deadlines-only-without-signal");

        clean();
        instance("key-1", 0, history(timedOut), 0, 0, 1400);
        assertThat(failed(check(witness()))).as("a time-out without a planned deadline").containsExactly("exact-path");
    }

    @Test
    void aTransitionCommittedTwiceFailsTheExactPath() throws Exception {
        instance("key-1", 0, history("prepare:next", "reserve:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done"));

        assertThat(failed(check(witness()))).containsExactly("exact-path");
    }

    @Test
    void aClaimItsNodeReportedFencedThatIsCommittedAnywayFails() throws Exception {
        instance("key-1", 0, history("prepare:next", "reserve:next", "charge:next", "wait:await", "wait:next",
                "finish:done"));

        Invariants.Run charge = new Invariants.Run(3, "charge");
        assertThat(failed(check(new Invariants.Witness(Map.of(charge, "fenced"), Set.of(), Map.of(), Map.of()))))
                .containsExactly("no-fenced-outcome-applied");
        assertThat(failed(check(new Invariants.Witness(Map.of(charge, "discarded"), Set.of(), Map.of(),
                Map.of())))).containsExactly("no-fenced-outcome-applied");
        // An abandoned outcome may have been applied by a commit whose answer was lost: counted, not a violation.
        Invariants.Report abandoned = check(new Invariants.Witness(Map.of(charge, "abandoned"), Set.of(), Map.of(),
                Map.of()));
        assertThat(failed(abandoned)).isEmpty();
        assertThat(abandoned.counts()).containsEntry("abandoned_but_applied", 1L);
    }

    @Test
    void overlappingCommittedExecutionsOfOnePartitionKeyFailButAFencedOverlapOnlyCounts() throws Exception {
        instance("key-1", 0, history("prepare:next", "reserve:next", "charge:next", "wait:await", "wait:next",
                "finish:done"));
        // A second instance of the same key whose first step ran inside the first instance's second step.
        instance("key-1", 120, history("prepare:next", "reserve:next", "charge:next", "wait:await", "wait:next",
                "finish:done"));

        assertThat(failed(check(witness()))).containsExactly("partition-key-exclusive");

        clean();
        long id = instance("key-1", 0, history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done"));
        long zombie = execution(id, "reserve", 0, 120, 400); // a fenced attempt overlapping committed ones
        Invariants.Report report = check(new Invariants.Witness(Map.of(new Invariants.Run(zombie, "reserve"),
                "fenced"), Set.of(), Map.of(), Map.of()));
        assertThat(failed(report)).isEmpty();
        assertThat(report.counts().get("overlaps_all")).isPositive();
        assertThat(report.counts()).containsEntry("duplicate_executions", 1L);
    }

    /** A node running next steps inline keeps the claim: a token repeats, but only right after a next. */
    @Test
    void anInlineChainSharesItsClaimOnlyAcrossNextOutcomes() throws Exception {
        List<ChaosMachine.Entry> chained = history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done");
        instance(null, 0, sameClaim(sameClaim(chained, 0, 1), 1, 2));
        assertThat(failed(check(witness()))).isEmpty();

        clean();
        List<ChaosMachine.Entry> afterAwait = history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done");
        // A woken step never runs on the claim that parked (its execution row collides with the park's here).
        instance(null, 0, sameClaim(afterAwait, 3, 4));
        assertThat(failed(check(witness()))).containsExactly("committed-claims");
    }

    @Test
    void aFinishedExecutionThatIsNeitherCommittedNorExplainedIsALostResult() throws Exception {
        long id = instance(null, 0, history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done"));
        execution(id, "charge", 0, 5_000, 5_050);

        assertThat(failed(check(witness()))).containsExactly("no-lost-results");
        // Cut short by a SIGKILL of its process: explained.
        assertThat(failed(check(new Invariants.Witness(Map.of(), Set.of(PID), Map.of(), Map.of())))).isEmpty();
    }

    @Test
    void aWokenStepThatSawTheDuplicateOrTwoSignalsFailsTheSignalCheck() throws Exception {
        List<ChaosMachine.Entry> history = history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done");
        history.set(4, new ChaosMachine.Entry("wait", "next", 0, history.get(4).token(), "node-1/" + PID,
                "nonce=dup-n0 awaited=2"));
        instance(null, 0, history);

        assertThat(failed(check(witness()))).containsExactly("signals-delivered-once");
    }

    @Test
    void aRowThatLostItsLastClaimsTokenOrIsNotDoneFails() throws Exception {
        long id = instance(null, 0, history("prepare:next", "reserve:next", "charge:next", "wait:await",
                "wait:next", "finish:done"));
        jdbc.update("UPDATE durable.durable_instance SET lease_token = 999 WHERE id = ?", id);
        assertThat(failed(check(witness()))).containsExactly("committed-claims");

        jdbc.update("UPDATE durable.durable_instance SET status = 'awaiting_signal' WHERE id = ?", id);
        assertThat(failed(check(witness()))).contains("all-done");
    }

    // ---------------------------------------------------------------- synthetic runs

    private Invariants.Report check(Invariants.Witness witness) {
        return new Invariants(data).check(witness);
    }

    private static Invariants.Witness witness() {
        return new Invariants.Witness(Map.of(), Set.of(), Map.of(), Map.of());
    }

    private static List<String> failed(Invariants.Report report) {
        return report.checks().stream().filter(check -> !check.passed()).map(Invariants.Check::name).toList();
    }

    /** {@code history} with entry {@code to} run on the claim of entry {@code from}. */
    private static List<ChaosMachine.Entry> sameClaim(List<ChaosMachine.Entry> history, int from, int to) {
        List<ChaosMachine.Entry> copy = new ArrayList<>(history);
        ChaosMachine.Entry entry = copy.get(to);
        copy.set(to, new ChaosMachine.Entry(entry.step(), entry.outcome(), entry.attempt(), copy.get(from).token(),
                entry.node(), entry.detail()));
        return copy;
    }

    /** History entries for these labels, with fresh increasing tokens. */
    private List<ChaosMachine.Entry> history(String... labels) {
        List<ChaosMachine.Entry> entries = new ArrayList<>();
        for (String label : labels) {
            String[] parts = label.split(":");
            String detail = label.equals("wait:next") ? "nonce=n0 awaited=1" : null;
            entries.add(new ChaosMachine.Entry(parts[0], parts[1], 0, nextToken++, "node-1/" + PID, detail));
        }
        return entries;
    }

    /**
     * A done instance with this committed history: its row, its plan, one execution per entry (100 ms apart from
     * {@code startMillis}, 50 ms each) and its acknowledged signal. Planned retries and errors follow the history.
     */
    private long instance(@Nullable String key, long startMillis, List<ChaosMachine.Entry> history)
            throws Exception {
        return instance(key, startMillis, history, 0, 0, startMillis);
    }

    /**
     * {@link #instance(String, long, List)} planned with a durable timer of {@code sleepMs} after prepare and an await
     * deadline of {@code deadlineMs}, its signal acknowledged at {@code signalMillis}.
     */
    private long instance(@Nullable String key, long startMillis, List<ChaosMachine.Entry> history, int sleepMs,
            int deadlineMs, long signalMillis) throws Exception {
        int retries = (int) history.stream().filter(e -> e.label().equals("reserve:retry")).count();
        int errors = (int) history.stream().filter(e -> e.label().equals("charge:error")).count();
        String result = json.writeValueAsString(new ChaosMachine.State(retries, errors, sleepMs, deadlineMs,
                history));
        long id = jdbc.queryForObject("""
                INSERT INTO durable.durable_instance (machine, machine_version, step, status, state, result, queue,
                                                      partition_key, lease_token)
                VALUES ('chaos', 1, 'finish', 'done', '{}', ?::jsonb, 'chaos', ?, ?)
                RETURNING id
                """, Long.class, result, key, history.get(history.size() - 1).token());
        jdbc.update("INSERT INTO chaos.plan VALUES (?, ?, ?, ?, ?, ?, ?, 'n0', 'EARLY', false)", id, (int) id, key,
                retries, errors, sleepMs, deadlineMs);
        jdbc.update("INSERT INTO chaos.delivery (instance_id, nonce, duplicate, result, attempts, sent_at) "
                + "VALUES (?, 'n0', false, 'DELIVERED', 1, ?)", id, Timestamp.from(T0.plusMillis(signalMillis)));
        for (int k = 0; k < history.size(); k++) {
            ChaosMachine.Entry entry = history.get(k);
            insertExecution(entry.token(), id, entry.step(), entry.attempt(), startMillis + 100L * k,
                    startMillis + 100L * k + 50);
        }
        return id;
    }

    /** An extra execution (not committed) with a fresh token; returns the token. */
    private long execution(long instanceId, String step, int attempt, long startMillis, long endMillis) {
        long token = 100_000 + nextToken++;
        insertExecution(token, instanceId, step, attempt, startMillis, endMillis);
        return token;
    }

    private void insertExecution(long token, long instanceId, String step, int attempt, long startMillis,
            long endMillis) {
        jdbc.update("""
                INSERT INTO chaos.effect (token, instance_id, step, attempt, node, pid, started_at, ended_at, outcome)
                VALUES (?, ?, ?, ?, 'node-1', ?, ?, ?, 'x')
                ON CONFLICT (token, step) DO NOTHING
                """, token, instanceId, step, attempt, PID, Timestamp.from(T0.plusMillis(startMillis)),
                Timestamp.from(T0.plusMillis(endMillis)));
    }
}
