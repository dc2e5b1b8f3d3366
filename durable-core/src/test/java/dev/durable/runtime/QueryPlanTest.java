package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.InstanceStatus;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.CancelRepository;
import dev.durable.runtime.control.DiagramRepository;
import dev.durable.runtime.control.HistoryRollup;
import dev.durable.runtime.control.QueryRepository;
import dev.durable.runtime.control.RetentionRepository;
import dev.durable.runtime.control.SearchRepository;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.deploy.InFlightRepository;
import dev.durable.runtime.jdbc.FreshlyPlannedJdbcTemplate;
import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.node.NodeRepository;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.LimitRepository;
import dev.durable.runtime.queue.FamilyRepository;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.time.DeadlineRepository;
import dev.durable.runtime.time.ScheduleRepository;
import dev.durable.testing.TestDatabase;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The plans of the hot-path statements on a table whose history (terminal rows) dwarfs its live rows: every
 * statement reaches its rows through an index, never a scan of the table (docs/DESIGN.md, "Statement planning").
 * Pitfalls P7 and P11 of docs/DESIGN.md are checked here: one queue per pick, so the pick index keeps its order;
 * deletes driven by ids.
 *
 * <p>The default suite uses 100,000 rows; {@code docs/PERFORMANCE.md} records the plans on a million, printed by
 * {@code ./mvnw -pl durable-core test -Dtest=QueryPlanTest -Ddurable.plan.rows=1000000 -Ddurable.plan.print=true}.
 */
class QueryPlanTest {

    private static final StatementPlanning PLANNING = new StatementPlanning(TestDatabase.dataSource(),
            DurableSchema.named(TestDatabase.SCHEMA));
    private static final int ROWS = Integer.getInteger("durable.plan.rows", 100_000);
    private static final boolean PRINT = Boolean.getBoolean("durable.plan.print");

    private final NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(TestDatabase.dataSource());
    private final NamedParameterJdbcTemplate freshlyPlanned = new NamedParameterJdbcTemplate(
            new FreshlyPlannedJdbcTemplate(TestDatabase.dataSource()));

    /**
     * ROWS rows over 5 queues: 1% runnable (half of those timers due up to an hour ahead, a tenth suspended), 1%
     * executing, 1% parked
     * (half of those with a deadline), 1% cancelled, the rest done (ended rows last updated up to a week ago); a
     * signal for every 10th row; a unique key on every other row (an ended row's shared with a later one), a
     * correlation key shared by about six rows on every third; every 10th row is a child of the row five before it.
     */
    @BeforeAll
    static void fillTheTable() {
        TestDatabase.clean();
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_instance
                    (machine, machine_version, step, state, queue, status, eligible_at, partition_key,
                     lease_owner, lease_token, lease_expires_at, updated_at, unique_key, correlation_key,
                     parent_id, cancel_with_parent)
                SELECT 'm', 1, 's', '{}', 'q' || (g % 5),
                       (CASE g % 100 WHEN 0 THEN 'runnable' WHEN 1 THEN 'executing' WHEN 2 THEN 'awaiting_signal'
                                     WHEN 3 THEN 'cancelled' ELSE 'done' END)::durable_it.durable_status,
                       CASE WHEN g % 200 = 100 THEN now() + (g % 60 + 1) * interval '1 minute'
                            ELSE now() - interval '1 minute' END,
                       CASE WHEN g % 3 = 0 AND g % 100 <> 1 THEN 'key-' || (g % 1000) END,
                       CASE WHEN g % 100 = 1 THEN 'node:1' END,
                       CASE WHEN g % 100 = 1 THEN g END,
                       CASE WHEN g % 100 = 1 THEN now() + interval '1 minute' END,
                       now() - (g % 10000) * interval '1 minute',
                       CASE WHEN g % 2 = 0 THEN 'order-' || CASE WHEN g % 100 < 3 THEN g ELSE g / 4 END END,
                       CASE WHEN g % 3 = 0 THEN 'customer-' || (g % (? / 18 + 1)) END,
                       CASE WHEN g % 10 = 5 THEN g - 5 END,
                       CASE WHEN g % 10 = 5 THEN true END
                FROM generate_series(1, ?) g
                """, ROWS, ROWS);
        // A tenth of the runnable rows suspended (docs/DESIGN.md, "Suspension"): a reason, waiting at 'infinity'.
        TestDatabase.jdbc().update("""
                UPDATE durable_it.durable_instance
                SET suspension = 'would lose [$.reservation]', eligible_at = 'infinity'
                WHERE status = 'runnable' AND id % 1000 = 0
                """);
        // The parked rows: every other one with a deadline, from ten minutes ago to ten minutes ahead.
        TestDatabase.jdbc().update("""
                UPDATE durable_it.durable_instance
                SET awaits = 'sig', deadline = CASE WHEN id % 200 = 2 THEN now() + (id % 21 - 10) * interval '1 minute' END
                WHERE status = 'awaiting_signal'
                """);
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_signal (instance_id, name, payload)
                SELECT id, 'sig', '{}' FROM durable_it.durable_instance WHERE id % 10 = 0
                """);
        // One schedule per 100 rows, a few of them due, of 10 machines.
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_schedule (name, machine, cron, zone, miss_policy, next_fire_at)
                SELECT 'schedule-' || g, 'm' || (g % 10), '@hourly', 'UTC', 'run_once',
                       now() + (CASE WHEN g % 100 = 0 THEN -1 ELSE g END) * interval '1 minute'
                FROM generate_series(1, ?) g
                """, Math.max(ROWS / 100, 100));
        // Five history entries per instance, written over the last 30 days in instance order, as the engine writes
        // them: the last hour holds about a 720th of them.
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_history (instance_id, step, event, status, attempt, node, at)
                SELECT i.id, 's', 'next', 'runnable', 0, 'node:1',
                       now() - interval '30 days' + (i.id * 5 + n) * interval '30 days' / (? * 5 + 5)
                FROM durable_it.durable_instance i, generate_series(1, 5) n
                ORDER BY 7
                """, ROWS);
        TestDatabase.jdbc().execute("ANALYZE durable_it.durable_history");
        // Counted by minute, as the nodes' history rollup counts a history after the upgrade to version 18.
        new HistoryRollup(new DiagramRepository(PLANNING), null).catchUp();
        TestDatabase.jdbc().execute("ANALYZE durable_it.durable_history_minute");
        TestDatabase.jdbc().execute("ANALYZE durable_it.durable_instance");
        TestDatabase.jdbc().execute("ANALYZE durable_it.durable_signal");
        TestDatabase.jdbc().execute("ANALYZE durable_it.durable_schedule");
    }

    @AfterAll
    static void emptyTheTable() {
        TestDatabase.clean();
    }

    /** The pick walks the partial pick index of its one queue, in order, no sort (docs/DESIGN.md, pitfall P7). */
    @Test
    void thePickWalksThePickIndexOfItsQueue() {
        String plan = explain(new LiteralLimits(ClaimRepository.PICK).with(64), new MapSqlParameterSource()
                .addValue("queue", "q1")
                .addValue("machine", new SqlArrayValue("text", "m"))
                .addValue("version", new SqlArrayValue("int4", 1))
                .addValue("wanted", 50)
                .addValue("owner", "node:2")
                .addValue("leaseMs", 60_000));

        assertThat(plan).contains("Index Scan using durable_instance_pick on durable_instance i")
                .contains("Index Cond: ((queue = 'q1'::text) AND (eligible_at <= now()))")
                .doesNotContain("Seq Scan");
    }

    /**
     * The pick of a queue with cluster-wide limits (docs/DESIGN.md, "Cluster-wide limits") walks the same pick index and
     * counts the queue's executing rows through the index of executing rows (the lease index), never the table; its
     * lock reaches the limit row by its key.
     */
    @Test
    void theLimitedPickWalksThePickIndexAndCountsTheExecutingRowsThroughAnIndex() {
        TestDatabase.jdbc().update("INSERT INTO durable_it.durable_queue_limit (queue, tokens, refilled_at)"
                + " VALUES ('q1', 2000, now()) ON CONFLICT (queue) DO NOTHING");
        String pick = explain(new LiteralLimits(ClaimRepository.PICK_LIMITED).with(64), new MapSqlParameterSource()
                .addValue("queue", "q1")
                .addValue("machine", new SqlArrayValue("text", "m"))
                .addValue("version", new SqlArrayValue("int4", 1))
                .addValue("wanted", 50)
                .addValue("owner", "node:2")
                .addValue("leaseMs", 60_000)
                .addValue("starts", 2000)
                .addValue("perMilli", 2.0)
                .addValue("concurrency", 5)
                .addValue("waiterMs", 2000));
        String lock = explain(LimitRepository.LOCK_LIMIT, new MapSqlParameterSource().addValue("queue", "q1")
                .addValue("starts", 2000));

        assertThat(pick).contains("Index Scan using durable_instance_pick on durable_instance i")
                .contains("durable_instance_lease")
                .doesNotContain("Seq Scan on durable_instance ");
        assertThat(lock).contains("durable_queue_limit");
    }

    @Test
    void outcomesReachTheirRowsByPrimaryKeyAndConsumeSignalsThroughAnIndex() {
        MapSqlParameterSource next = claims()
                .addValue("step", new SqlArrayValue("text", "t", "t"))
                .addValue("state", new SqlArrayValue("text", "{}", "{}"))
                .addValue("delayMs", new SqlArrayValue("int8", 0L, 60_000L))
                .addValue("at", new SqlArrayValue("text", null, null))
                .addValue("consumedSignal", new SqlArrayValue("int8", 5L));
        String plan = explain(TransitionRepository.APPLY_NEXT, next);

        assertThat(plan).contains("Index Scan using durable_instance_pkey")
                .containsAnyOf("Index Scan using durable_signal_pkey", "Index Scan using durable_signal_inbox")
                .doesNotContain("Seq Scan");
    }

    /**
     * A retry, a suspension riding in the same statement (docs/DESIGN.md, "Suspension"), and an inline continuation
     * reach their rows by primary key, as every fenced write.
     */
    @Test
    void retriesSuspensionsAndContinuationsReachTheirRowsByPrimaryKey() {
        String retry = explain(TransitionRepository.APPLY_RETRY, claims()
                .addValue("state", new SqlArrayValue("text", "{}", null))
                .addValue("delayMs", new SqlArrayValue("int8", 1000L, 0L))
                .addValue("at", new SqlArrayValue("text", null, null))
                .addValue("error", new SqlArrayValue("text", null, "would lose [$.reservation]"))
                .addValue("suspension", new SqlArrayValue("text", null, "would lose [$.reservation]"))
                .addValue("trace", new SqlArrayValue("text", "link 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null)));
        MapSqlParameterSource continuation = claims()
                .addValue("step", new SqlArrayValue("text", "t", "t"))
                .addValue("state", new SqlArrayValue("text", "{}", "{}"))
                .addValue("consumedSignal", new SqlArrayValue("int8", 5L))
                .addValue("leaseMs", 60_000)
                .addValue("continuesBefore", new SqlArrayValue("int4", null, null));
        String next = explain(TransitionRepository.CONTINUE.get("continue"), continuation);
        // written again after an ambiguous commit (docs/DESIGN.md, "Fencing"): it also looks at the history
        String again = explain(TransitionRepository.CONTINUE.get("continue again"), continuation
                .addValue("continuesBefore", new SqlArrayValue("int4", null, 1)));

        assertThat(retry).contains("Index Scan using durable_instance_pkey").doesNotContain("Seq Scan");
        assertThat(next).contains("Index Scan using durable_instance_pkey")
                .doesNotContain("Seq Scan on durable_instance").doesNotContain("durable_history_instance");
        assertThat(again).contains("Index Scan using durable_instance_pkey", "durable_history_instance")
                .doesNotContain("Seq Scan on durable_instance");
    }

    /** An operator's retry of one failed or suspended instance locks it by primary key. */
    @Test
    void aRetryOfOneInstanceReachesItByPrimaryKey() {
        String retry = explain(QueryRepository.RETRY_FAILED, new MapSqlParameterSource().addValue("id", 1000L)
                .addValue("history", true).addValue("node", "node:1")
                .addValue("trace", "traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));

        assertThat(retry).contains("durable_instance_pkey").doesNotContain("Seq Scan");
    }

    @Test
    void terminalOutcomesAndTheirInboxClearingUseIndexes() {
        String update = explain(TransitionRepository.APPLY_TERMINAL, claims()
                .addValue("status", new SqlArrayValue("text", "done", "failed"))
                .addValue("result", new SqlArrayValue("text", "1", null))
                .addValue("error", new SqlArrayValue("text", null, "x"))
                .addValue("state", new SqlArrayValue("text", null, "{\"upcast\": true}")));
        // The ids are bound, so the delete finds its rows through the index on instance_id (docs/DESIGN.md,
        // pitfall P11).
        String delete = explain(FamilyRepository.CLEAR_INBOXES, new MapSqlParameterSource()
                .addValue("id", new SqlArrayValue("int8", 1001L, 2001L)));

        assertThat(update).contains("durable_instance_pkey").doesNotContain("Seq Scan");
        assertThat(delete).containsAnyOf("durable_signal_dedup", "durable_signal_inbox").doesNotContain("Seq Scan");
    }

    @Test
    void theParkLocksAndRechecksByIndex() {
        String lock = explain(TransitionRepository.LOCK_CLAIMS, claims());
        String park = explain(TransitionRepository.APPLY_AWAIT, claims()
                .addValue("awaits", new SqlArrayValue("text", "sig", "sig"))
                .addValue("setInstance", new SqlArrayValue("int8", 2001L, 2001L))
                .addValue("setName", new SqlArrayValue("text", "sig", "other"))
                .addValue("trace", new SqlArrayValue("text", "link 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null))
                .addValue("timeoutMs", new SqlArrayValue("int8", null, 60_000L))
                .addValue("at", new SqlArrayValue("text", null, null))
                .addValue("state", new SqlArrayValue("text", "{}", "{}"))
                .addValue("seenInstance", new SqlArrayValue("int8"))
                .addValue("seenSignal", new SqlArrayValue("int8"))
                .addValue("joinOn", new SqlArrayValue("text", null, "all"))
                .addValue("childrenSeen", new SqlArrayValue("int4", 0, 0)));

        assertThat(lock).contains("durable_instance_pkey").doesNotContain("Seq Scan");
        assertThat(park).contains("durable_instance_pkey").containsAnyOf("durable_signal_inbox", "durable_signal_dedup")
                .doesNotContain("Seq Scan on durable_instance").doesNotContain("Seq Scan on durable_signal");
    }

    @Test
    void theHeartbeatFindsItsClaimsByPrimaryKey() {
        String plan = explain(ClaimRepository.HEARTBEAT, claims().addValue("leaseMs", 60_000));

        assertThat(plan).contains("durable_instance_pkey").doesNotContain("Seq Scan on durable_instance");
    }

    /** The check of claims that waited for a slot reads their rows by primary key, like the heartbeat. */
    @Test
    void theCheckOfWaitingClaimsReadsTheirRowsByPrimaryKey() {
        String plan = explain(ClaimRepository.STILL_CLAIMED, claims());

        assertThat(plan).contains("durable_instance_pkey").doesNotContain("Seq Scan on durable_instance");
    }

    @Test
    void theReaperAndTheRestartReleaseWalkTheLeaseIndex() {
        String reap = explain(ClaimRepository.REAP, new MapSqlParameterSource().addValue("limit", 1000)
                .addValue("history", true).addValue("node", "node:2"));
        String release = explain(ClaimRepository.RELEASE_EARLIER_STARTS, new MapSqlParameterSource()
                .addValue("ownerPrefix", "node:")
                .addValue("owner", "node:2")
                .addValue("staleBeforeExpiryMs", 58_000)
                .addValue("history", true).addValue("node", "node:2"));

        assertThat(reap).contains("durable_instance_lease").doesNotContain("Seq Scan on durable_instance");
        assertThat(release).contains("durable_instance_lease").doesNotContain("Seq Scan on durable_instance");
    }

    /**
     * With or without (machine, version) pairs that refuse the signal (docs/DESIGN.md, "Declared signals"), the
     * delivery locks its one row by primary key; the pairs are a filter on that row, never a scan.
     */
    @Test
    void aSignalDeliveryLocksItsInstanceByPrimaryKey() {
        String plan = explain(SignalRepository.DELIVER, new MapSqlParameterSource()
                .addValue("instanceId", 1001L)
                .addValue("name", "sig")
                .addValue("payload", "{}")
                .addValue("dedupKey", "evt-1")
                .addValue("trace", "traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .addValue("refusingMachine", new SqlArrayValue("text"))
                .addValue("refusingVersion", new SqlArrayValue("int4"))
                .addValue("wakeChannel", "durable_wake_durable_it"));
        String refusing = explain(SignalRepository.DELIVER, new MapSqlParameterSource()
                .addValue("instanceId", 1001L)
                .addValue("name", "sig")
                .addValue("payload", "{}")
                .addValue("dedupKey", "evt-1")
                .addValue("trace", null)
                .addValue("refusingMachine", new SqlArrayValue("text", "m", "other"))
                .addValue("refusingVersion", new SqlArrayValue("int4", 1, 3))
                .addValue("wakeChannel", null));

        assertThat(plan).contains("durable_instance_pkey").doesNotContain("Seq Scan");
        assertThat(refusing).contains("durable_instance_pkey").doesNotContain("Seq Scan");
    }

    /**
     * The live counts, polled by every node's metrics (docs/DESIGN.md, "Counting instances"): the indexes of unfinished
     * rows, never the history. LiveCountPlanTest checks the index-only scan on a vacuumed table of many machines.
     */
    @Test
    void theLiveCountsReadOnlyTheIndexesOfUnfinishedRows() {
        String plan = explain(QueryRepository.COUNT_LIVE, new MapSqlParameterSource());

        assertThat(plan).contains("durable_instance_step").contains("durable_instance_lease")
                .contains("durable_instance_suspended").doesNotContain("Seq Scan");
    }

    /**
     * The stranded-instances watch, run by every node on each reaper run: the runnable rows through the partial
     * pick index (or the index of what is in flight, which holds them in machine order), anti-joined to the handful of
     * live machine versions; never the history.
     */
    @Test
    void theStrandedWatchReadsOnlyTheRunnableRows() {
        String plan = explain(NodeRepository.STRANDED, new MapSqlParameterSource().addValue("liveSeconds", 60.0));

        assertThat(plan).containsPattern("durable_instance_(pick|step)")
                .doesNotContain("Seq Scan on durable_instance");
    }

    /**
     * The deadline sweep, run by every node at least once per poll interval: the due parked rows through the partial
     * deadline index, and the next deadline as the first entry of that index; never the history.
     */
    /**
     * Under the test kit's clock (docs/DESIGN.md, "Time in tests") the pick and the deadline sweep still reach their
     * rows through their indexes: the shifted time is an uncorrelated subquery, computed once before the scan, that
     * the index condition compares.
     */
    @Test
    void underTheTestClockThePickAndTheDeadlineSweepKeepTheirIndexes() {
        TestDatabase.jdbc().execute("CREATE TABLE IF NOT EXISTS durable_it.durable_test_clock (only_row boolean"
                + " PRIMARY KEY DEFAULT true CHECK (only_row), shift interval NOT NULL)");
        TestDatabase.jdbc().update("INSERT INTO durable_it.durable_test_clock (shift) VALUES (interval '1 day')"
                + " ON CONFLICT (only_row) DO NOTHING");
        StatementPlanning testClock = new StatementPlanning(TestDatabase.dataSource(),
                DurableSchema.named(TestDatabase.SCHEMA), true);
        try {
            String pick = plan(testClock.qualify(new LiteralLimits(ClaimRepository.PICK).with(64)),
                    new MapSqlParameterSource().addValue("queue", "q1")
                            .addValue("machine", new SqlArrayValue("text", "m"))
                            .addValue("version", new SqlArrayValue("int4", 1))
                            .addValue("wanted", 50).addValue("owner", "node:2").addValue("leaseMs", 60_000));
            String fire = plan(testClock.qualify(new LiteralLimits(DeadlineRepository.FIRE).with(1000)),
                    new MapSqlParameterSource());

            // Maybe not the ordered walk of production's pick (pitfall P7): the planner cannot see the shifted time,
            // and on 100,000 rows PostgreSQL 15 reads the queue's due rows through the same index as a bitmap and
            // sorts them ("Bitmap Index Scan on"); on 1,000,000 it walks it ("Index Scan using"). Either way through
            // the pick's index, and no table scan.
            assertThat(pick).contains("durable_instance_pick").contains("durable_test_clock")
                    .doesNotContain("Seq Scan on durable_instance");
            assertThat(fire).contains("durable_instance_deadline").contains("durable_test_clock")
                    .doesNotContain("Seq Scan on durable_instance");
        } finally {
            TestDatabase.jdbc().execute("DROP TABLE durable_it.durable_test_clock");
        }
    }

    private String plan(String sql, MapSqlParameterSource parameters) {
        return String.join("\n", jdbc.queryForList("EXPLAIN " + sql, parameters).stream()
                .map(line -> (String) line.get("QUERY PLAN")).toList());
    }

    @Test
    void theDeadlineSweepWalksTheDeadlineIndex() {
        String fire = explain(new LiteralLimits(DeadlineRepository.FIRE).with(1000), new MapSqlParameterSource());
        String next = explain(DeadlineRepository.UNTIL_NEXT, new MapSqlParameterSource());

        assertThat(fire).contains("durable_instance_deadline").doesNotContain("Seq Scan on durable_instance");
        assertThat(next).contains("durable_instance_deadline").doesNotContain("Seq Scan on durable_instance");
    }

    /**
     * The schedule sweep finds due schedules through the due index; a fire reaches its schedule by primary key and
     * checks each tick's unique key through the unique index, never scanning the instances (by primary key or through
     * the due index by its tick, whichever the planner costs lower: both are one index probe).
     */
    @Test
    void theScheduleSweepWalksTheDueIndexAndAFireTouchesItsRowsByKey() {
        SqlArrayValue machines = new SqlArrayValue("text", "m1", "m2");
        String due = explain(new LiteralLimits(ScheduleRepository.DUE).with(1000), new MapSqlParameterSource()
                .addValue("machines", machines));
        String next = explain(ScheduleRepository.UNTIL_NEXT, new MapSqlParameterSource().addValue("machines",
                machines));
        String fire = explain(ScheduleRepository.FIRE, new MapSqlParameterSource()
                .addValue("name", "schedule-100")
                .addValue("expected", java.time.OffsetDateTime.now())
                .addValue("nextFireAt", java.time.OffsetDateTime.now())
                .addValue("lastFiredAt", null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE)
                .addValue("machine", "m0").addValue("version", 1).addValue("step", "s").addValue("queue", "q0")
                .addValue("keys", new SqlArrayValue("text", "schedule:schedule-100:2026-01-01T00:00:00Z")));
        String stranded = explain(NodeRepository.STRANDED_SCHEDULES, new MapSqlParameterSource()
                .addValue("liveSeconds", 60.0));

        assertThat(due).contains("durable_schedule_due").doesNotContain("Seq Scan");
        assertThat(next).doesNotContain("durable_instance");
        assertThat(fire).containsPattern("Index Scan using durable_schedule_(pkey|due) on durable_schedule")
                .contains("Conflict Arbiter Indexes: durable_instance_unique").doesNotContain("Seq Scan");
        assertThat(stranded).contains("durable_schedule_due").doesNotContain("durable_instance");
    }

    /**
     * When the next runnable row falls due: a few index probes of the pick index (one per priority, plus one to find
     * each priority), however many future rows wait.
     */
    @Test
    void theNextEligibleRowIsFoundThroughThePickIndex() {
        String plan = explain(ClaimRepository.UNTIL_NEXT_ELIGIBLE, new MapSqlParameterSource().addValue("queue", "q0"));

        assertThat(plan).contains("durable_instance_pick").doesNotContain("Seq Scan").doesNotContain("Sort");
    }

    /**
     * Retention walks the partial index of ended rows from the oldest and deletes the batch by primary key, for done
     * rows, failed and cancelled ones.
     */
    @Test
    void retentionWalksTheIndexOfEndedRows() {
        MapSqlParameterSource expired = new MapSqlParameterSource().addValue("keepMs", 60_000L).addValue("limit", 1000);
        String done = explain(RetentionRepository.DELETE.get(InstanceStatus.DONE), expired);
        String failed = explain(RetentionRepository.DELETE.get(InstanceStatus.FAILED), expired);
        String cancelled = explain(RetentionRepository.DELETE.get(InstanceStatus.CANCELLED), expired);

        assertThat(done).contains("durable_instance_ended", "durable_instance_pkey", "durable_history_instance")
                .doesNotContain("Seq Scan");
        // With few failed rows, their own partial index may cost less: an index either way.
        assertThat(failed).containsPattern("durable_instance_(ended|failed)").contains("durable_instance_pkey")
                .doesNotContain("Seq Scan");
        assertThat(cancelled).contains("durable_instance_ended", "durable_instance_pkey").doesNotContain("Seq Scan");
    }

    /** A cancel locks and ends its rows by primary key, like a signal delivery; its inbox clearing by index. */
    @Test
    void aCancelReachesItsRowsByPrimaryKey() {
        String cancel = explain(CancelRepository.CANCEL, new MapSqlParameterSource()
                .addValue("id", new SqlArrayValue("int8", 1001L, 2002L, 3003L))
                .addValue("reason", "operator")
                .addValue("history", true).addValue("node", "node:2"));

        assertThat(cancel).contains("durable_instance_pkey").doesNotContain("Seq Scan");
    }

    /**
     * Children: a batch's children are inserted in one statement that counts them at their parents by primary key;
     * a child's end reaches its parent by primary key; a parent reads its children, and a cancel cascades to them,
     * through the parent index (docs/DESIGN.md, "Children").
     */
    @Test
    void childrenAreStartedCountedReadAndCancelledThroughIndexes() {
        String start = explain(FamilyRepository.START_CHILDREN, new MapSqlParameterSource()
                .addValue("machine", new SqlArrayValue("text", "m", "m"))
                .addValue("version", new SqlArrayValue("int4", 1, 1))
                .addValue("step", new SqlArrayValue("text", "s", "s"))
                .addValue("state", new SqlArrayValue("text", "{}", "{}"))
                .addValue("queue", new SqlArrayValue("text", "q0", "q0"))
                .addValue("priority", new SqlArrayValue("int4", 0, 0))
                .addValue("partitionKey", new SqlArrayValue("text", null, null))
                .addValue("delayMs", new SqlArrayValue("int8", 0L, 0L))
                .addValue("at", new SqlArrayValue("text", null, null))
                .addValue("uniqueKey", new SqlArrayValue("text", null, "line-7"))
                .addValue("uniqueScope", new SqlArrayValue("text", "{runnable}", "{runnable}"))
                .addValue("correlationKey", new SqlArrayValue("text", "order-7", null))
                .addValue("parentId", new SqlArrayValue("int8", 1001L, 1001L))
                .addValue("cancelWithParent", new SqlArrayValue("bool", true, false))
                .addValue("trace", new SqlArrayValue("text", "link 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null))
                .addValue("claimed", new SqlArrayValue("int8", 1001L))
                .addValue("wakeChannel", "durable_wake_durable_it"));
        String ended = explain(FamilyRepository.CHILDREN_ENDED, new MapSqlParameterSource()
                .addValue("parentId", new SqlArrayValue("int8", 1000L, 1000L, 2000L))
                .addValue("wakeChannel", "durable_wake_durable_it"));
        String read = explain(QueryRepository.CHILDREN, new MapSqlParameterSource().addValue("parentId", 1000L)
                .addValue("afterId", 0L).addValue("limit", 500L));
        String cascade = explain(CancelRepository.CANCEL_CHILDREN, new MapSqlParameterSource()
                .addValue("parentId", new SqlArrayValue("int8", 1000L, 2000L))
                .addValue("reason", "operator")
                .addValue("history", true).addValue("node", "node:2"));

        assertThat(start).contains("durable_instance_pkey").doesNotContain("Seq Scan on durable_instance");
        assertThat(ended).contains("durable_instance_pkey").doesNotContain("Seq Scan");
        assertThat(read).contains("durable_instance_parent").doesNotContain("Seq Scan").doesNotContain("Sort");
        assertThat(cascade).contains("durable_instance_parent", "durable_instance_pkey").doesNotContain("Seq Scan");
    }

    /** An instance's history is read through the history index, in order, without a sort. */
    @Test
    void anInstancesHistoryIsReadThroughItsIndex() {
        String plan = explain(QueryRepository.HISTORY, new MapSqlParameterSource().addValue("instanceId", 1000L)
                .addValue("afterId", 0L).addValue("limit", 100));

        assertThat(plan).contains("durable_history_instance").doesNotContain("Seq Scan").doesNotContain("Sort");
    }

    /**
     * A machine's diagram (docs/DESIGN.md, "Dashboard"): its transitions over the last hour or day read the window's
     * minutes the rollup counted through their index by machine and minute, and its other history entries (all of
     * them before any count) through the index by time, each joined to its instance by primary key; its unfinished
     * and failed instances at each step are counted from the indexes the live counts read, the machine's entries of
     * durable_instance_step alone. Neither reads a table whole.
     */
    @Test
    void aMachinesDiagramReadsItsWindowAndItsUnfinishedRowsThroughIndexes() {
        // Planned as the repository runs it: after LOOP_JOINS, in the same transaction, with the rollup's mark.
        Instant rolled = TestDatabase.jdbc().queryForObject(PLANNING.qualify(DiagramRepository.ROLLED_UNTIL),
                OffsetDateTime.class).toInstant();
        String hour = explainTraffic(DiagramRepository.window("m", Instant.now().minus(Duration.ofHours(1)), rolled));
        String day = explainTraffic(DiagramRepository.window("m", Instant.now().minus(Duration.ofDays(1)), rolled));
        String uncounted = explainTraffic(DiagramRepository.window("m", Instant.now().minus(Duration.ofHours(1)),
                null));
        String atSteps = explain(DiagramRepository.COUNT_BY_STEP, new MapSqlParameterSource("machine", "m"));

        // The window's counted minutes through their index by machine and minute; its other entries, the first
        // minute's and the last few minutes', through the history's index by time, or as a bitmap of it, each in a
        // loop joined to its instance by primary key.
        for (String traffic : List.of(hour, day)) {
            assertThat(traffic).containsPattern("Index Scan using durable_history_minute_machine on"
                    + " durable_history_minute|Bitmap Index Scan on durable_history_minute_machine");
        }
        for (String traffic : List.of(hour, day, uncounted)) {
            assertThat(traffic).containsPattern("Index Scan using durable_history_at on durable_history h"
                    + "|Bitmap Index Scan on durable_history_at")
                    .contains("Nested Loop").contains("durable_instance_pkey").doesNotContain("Seq Scan");
        }
        assertThat(atSteps).containsPattern("Index Only Scan using durable_instance_step on durable_instance"
                + "|Bitmap Index Scan on durable_instance_step");
        assertThat(atSteps).contains("durable_instance_lease").contains("durable_instance_suspended")
                .doesNotContain("Seq Scan");
    }

    /**
     * The history rollup (docs/DESIGN.md, "Dashboard"): its span finds the minute of the entry a turn's worth past its
     * mark through the history's index by time; a turn reads its span's entries through that index, each joined to
     * its instance by primary key; the trim finds each machine's oldest counts through their index by machine and
     * minute, and the machines by a loose scan of it, and deletes the counts by row id.
     */
    @Test
    void aTurnOfTheHistoryRollupReadsItsSpanThroughIndexes() {
        String span = new TransactionTemplate(new DataSourceTransactionManager(TestDatabase.dataSource()))
                .execute(status -> {
                    status.setRollbackOnly();
                    TestDatabase.jdbc().update("UPDATE durable_it.durable_history_rollup"
                            + " SET rolled_until = now() - interval '10 days'");
                    jdbc.update(PLANNING.qualify(DiagramRepository.LOOP_JOINS), new MapSqlParameterSource());
                    return explain(DiagramRepository.ROLLUP_SPAN, new MapSqlParameterSource("entries",
                            HistoryRollup.ENTRIES_PER_TURN));
                });
        String turn = new TransactionTemplate(new DataSourceTransactionManager(TestDatabase.dataSource()))
                .execute(status -> {
                    status.setRollbackOnly();
                    jdbc.update(PLANNING.qualify(DiagramRepository.LOOP_JOINS), new MapSqlParameterSource());
                    // A turn's worth of the 30 days' entries: the span of a tenth of a day on 1,000,000 rows.
                    return explain(DiagramRepository.ROLL_UP, new MapSqlParameterSource()
                            .addValue("rolledFrom", OffsetDateTime.now().minusDays(10))
                            .addValue("rolledUntil", OffsetDateTime.now().minusDays(10)
                                    .plusSeconds(HistoryRollup.ENTRIES_PER_TURN * 30L * 86_400 / (ROWS * 5L))));
                });
        String trim = new TransactionTemplate(new DataSourceTransactionManager(TestDatabase.dataSource()))
                .execute(status -> {
                    status.setRollbackOnly();
                    jdbc.update(PLANNING.qualify(DiagramRepository.LOOP_JOINS), new MapSqlParameterSource());
                    return explain(DiagramRepository.TRIM_ROLLUP, new MapSqlParameterSource()
                            .addValue("keepMs", Duration.ofDays(29).toMillis())
                            .addValue("limit", HistoryRollup.ENTRIES_PER_TURN));
                });

        // The rollup's own one row is read as a table; nothing else is.
        assertThat(span).containsPattern("Index Only Scan using durable_history_at on durable_history h"
                + "|Index Scan using durable_history_at on durable_history h")
                .doesNotContainPattern("Seq Scan on durable_(history|instance) ");
        assertThat(turn).containsPattern("Index Scan using durable_history_at on durable_history h"
                        + "|Bitmap Index Scan on durable_history_at")
                .contains("Nested Loop").contains("durable_instance_pkey")
                .doesNotContainPattern("Seq Scan on durable_(history|instance) ");
        assertThat(trim).contains("Index Only Scan using durable_history_minute_machine")
                .containsPattern("Index Scan using durable_history_minute_machine on durable_history_minute m"
                        + "|Bitmap Index Scan on durable_history_minute_machine")
                .contains("Tid Scan").doesNotContain("Seq Scan");
    }

    /**
     * A look-up by business key reads the key's own index: every instance that carried a unique key or shares a
     * correlation key, in id order (at most the key's own rows sorted); the holder of a unique key, found or locked,
     * through the unique index.
     */
    @Test
    void aLookUpByKeyReadsTheKeysIndex() {
        String unique = explainSearch(SearchRepository.SEARCH, search().addValue("uniqueKey", "order-1000"));
        String correlated = explainSearch(SearchRepository.SEARCH_NEWEST_FIRST,
                search().addValue("correlationKey", "customer-77"));
        String holder = explain(SearchRepository.FIND_HOLDER, new MapSqlParameterSource("uniqueKey", "order-1000"));
        String locked = explain(SearchRepository.LOCK_HOLDER, new MapSqlParameterSource("uniqueKey", "order-1000"));

        assertThat(unique).contains("Index Scan using durable_instance_unique_key").doesNotContain("Sort")
                .doesNotContain("Seq Scan");
        // Walked backwards, or its few rows fetched and sorted: the key's rows only, either way.
        assertThat(correlated).contains("durable_instance_correlation_key").doesNotContain("Seq Scan");
        assertThat(holder).contains("durable_instance_unique ").doesNotContain("Seq Scan");
        assertThat(locked).contains("durable_instance_unique ").doesNotContain("Seq Scan");
    }

    /**
     * A page filtered by criteria without an index of their own walks the primary key in the page's order, testing
     * them on the way, and stops at the limit; a status with a partial index of its own may be read through it and
     * its few rows sorted instead. Either way the table is never scanned and sorted whole.
     */
    @Test
    void aFilteredPageWalksAnIndexAndNeverSortsTheTable() {
        String byMachineAndStep = explainSearch(SearchRepository.SEARCH, search().addValue("machine", "m")
                .addValue("version", 1).addValue("step", "s"));
        String newest = explainSearch(SearchRepository.SEARCH_NEWEST_FIRST, search());
        String byError = explainSearch(SearchRepository.SEARCH_NEWEST_FIRST, search()
                .addValue("statuses", "{cancelled}").addValue("errorContains", "carrier down")
                .addValue("updatedFrom", java.time.OffsetDateTime.now().minusDays(1)));
        String parked = explainSearch(SearchRepository.SEARCH, search().addValue("statuses", "{awaiting_signal}")
                .addValue("queue", "q2").addValue("afterId", 5000L));
        String someStatuses = explainSearch(SearchRepository.SEARCH, search()
                .addValue("statuses", "{runnable,executing,awaiting_signal}").addValue("suspended", false)
                .addValue("createdFrom", java.time.OffsetDateTime.now().minusDays(1)));
        // Suspended instances, as the repository binds them: the runnable rows with a reason, and nothing else.
        String suspended = explainSearch(SearchRepository.SEARCH, search().addValue("statuses", "{runnable}")
                .addValue("plainRunnable", false).addValue("onlySuspended", true));

        assertThat(byMachineAndStep).contains("Index Scan using durable_instance_pkey").doesNotContain("Sort");
        assertThat(newest).contains("Index Scan Backward using durable_instance_pkey").doesNotContain("Sort");
        assertThat(parked).contains("durable_instance_awaiting");
        assertThat(suspended).contains("durable_instance_suspended");
        for (String plan : List.of(byMachineAndStep, newest, byError, parked, someStatuses, suspended)) {
            assertThat(plan).doesNotContain("Seq Scan");
        }
    }

    /**
     * A bulk operation locks its page in id order through an index; a bulk retry then reaches its rows through an
     * index (by their ids, or by their status when the statistics count few failed rows) and looks up each key's
     * holder through the unique index.
     */
    @Test
    void aBulkOperationLocksItsPageThroughAnIndexAndRetriesByPrimaryKey() {
        String lock = explainSearch(SearchRepository.LOCK_PAGE, search().addValue("machine", "m")
                .addValue("statuses", "{runnable,executing,awaiting_signal}").addValue("suspended", false)
                .addValue("limit", 1000));
        String retry = explain(QueryRepository.RETRY_FAILED_PAGE, new MapSqlParameterSource()
                .addValue("id", new SqlArrayValue("int8", 1004L, 2004L, 3004L))
                .addValue("history", true).addValue("node", "node:1"));

        assertThat(lock).contains("LockRows").containsPattern("Index Scan using durable_instance_\\w+")
                .doesNotContain("Seq Scan");
        assertThat(retry).containsPattern("Index Scan using durable_instance_\\w+ on durable_instance d")
                .contains("durable_instance_unique ").doesNotContain("Seq Scan");
    }

    /**
     * What is in flight, read group by group through durable_instance_step (docs/DESIGN.md, "What is in flight"): the
     * groups by a loose index scan (one probe each) and each counted up to its cap there; a group's sample through the
     * same index in id order, all of a small group or a spread over the ids of a large one (a probe per point); the
     * executing rows through the lease index; the pending signals, and the deploy check's sample of their payloads
     * (docs/DESIGN.md, "Declared signals"), through the inbox index, joined by primary key. Never a scan of the table.
     */
    @Test
    void whatIsInFlightIsReadGroupByGroupThroughIndexes() {
        String groups = explain(new LiteralLimits(InFlightRepository.GROUPS).with(InFlightRepository.COUNT_LIMIT + 1),
                new MapSqlParameterSource());
        MapSqlParameterSource group = new MapSqlParameterSource().addValue("machine", "m").addValue("version", 1)
                .addValue("step", "s").addValue("status", "runnable", Types.VARCHAR);
        String sample = explain(new LiteralLimits(InFlightRepository.SAMPLE).with(InFlightRepository.SAMPLE_SIZE),
                group);
        String spread = explain(new LiteralLimits(InFlightRepository.SAMPLE_SPREAD)
                .with(InFlightRepository.SAMPLE_SIZE - 1), group);
        String executing = explain(new LiteralLimits(InFlightRepository.EXECUTING)
                .with(InFlightRepository.SAMPLE_SIZE), new MapSqlParameterSource());
        String signals = explain(new LiteralLimits(InFlightRepository.PENDING_SIGNALS)
                .with(InFlightRepository.SIGNAL_LIMIT + 1), new MapSqlParameterSource());
        String payloads = explain(new LiteralLimits(InFlightRepository.PENDING_PAYLOADS)
                .with(InFlightRepository.SIGNAL_LIMIT + 1), new MapSqlParameterSource("sample",
                InFlightRepository.SAMPLE_SIZE));

        assertThat(groups).contains("Recursive Union").contains("durable_instance_step")
                .containsPattern("Index Cond: \\(ROW\\(machine, machine_version, step, status\\) > ROW\\(")
                .doesNotContain("Seq Scan");
        assertThat(sample).contains("durable_instance_step").doesNotContain("Seq Scan").doesNotContain("Sort");
        assertThat(spread).contains("durable_instance_step").contains("Function Scan on generate_series")
                .doesNotContain("Seq Scan");
        assertThat(executing).contains("durable_instance_lease").doesNotContain("Seq Scan");
        assertThat(signals).contains("durable_signal_inbox").contains("durable_instance_pkey")
                .doesNotContain("Seq Scan");
        assertThat(payloads).contains("durable_signal_inbox").contains("durable_instance_pkey")
                .doesNotContain("Seq Scan");
    }

    /** A crashed step's hand-back reaches its row by primary key, like every fenced write. */
    @Test
    void aCrashedStepIsHandedBackByPrimaryKey() {
        String plan = explain(ClaimRepository.RETURN_CRASHED, claims().addValue("error", "died"));

        assertThat(plan).contains("durable_instance_pkey").doesNotContain("Seq Scan");
    }

    /**
     * Every statement written once and rendered into variants (docs/DESIGN.md, "Where the SQL lives") is printed,
     * variant by variant, and planned: each variant is a whole statement PostgreSQL accepts, with a text of its own
     * (pitfall P13), that reaches its rows through an index.
     */
    @Test
    void everyVariantOfAStatementWrittenOnceIsPrintedAndPlanned() {
        Map<String, String> plans = new java.util.LinkedHashMap<>();
        TransitionRepository.CONTINUE.forEach((variant, sql) -> plans.put(sql, explain(sql, claims()
                .addValue("step", new SqlArrayValue("text", "t", "t"))
                .addValue("state", new SqlArrayValue("text", "{}", "{}"))
                .addValue("consumedSignal", new SqlArrayValue("int8", 5L))
                .addValue("leaseMs", 60_000)
                .addValue("continuesBefore", new SqlArrayValue("int4", null, 1)))));
        RetentionRepository.DELETE.forEach((status, sql) -> plans.put(sql, explain(sql,
                new MapSqlParameterSource().addValue("keepMs", 60_000L).addValue("limit", 1000))));
        SearchRepository.PAGES.forEach((variant, sql) -> plans.put(sql, explainSearch(sql, search())));
        // Counting every instance, whatever the criteria, reads them all ("Counting instances"): it is planned, not
        // held to an index.
        String countEverything = SearchRepository.PAGES.get("count");

        assertThat(plans).hasSize(TransitionRepository.CONTINUE.size() + RetentionRepository.DELETE.size()
                + SearchRepository.PAGES.size());
        plans.forEach((sql, plan) -> {
            System.out.println("---- " + sql.lines().findFirst().orElse("").strip() + "\n" + sql + "\n" + plan);
            assertThat(sql).as("a rendered variant").doesNotContain("-- in:", "{status}");
            assertThat(plan).as(sql).isNotBlank();
            if (!sql.equals(countEverything)) {
                assertThat(plan).as(sql).contains("Index").doesNotContain("Seq Scan on durable_instance ");
            }
        });
    }

    /** Two claims, and what a statement that ends them records in their history. */
    private static MapSqlParameterSource claims() {
        return new MapSqlParameterSource()
                .addValue("id", new SqlArrayValue("int8", 1001L, 2001L))
                .addValue("token", new SqlArrayValue("int8", 1001L, 2001L))
                .addValue("ranStep", new SqlArrayValue("text", "s", "s"))
                .addValue("attempt", new SqlArrayValue("int4", 0, 1))
                .addValue("durationMs", new SqlArrayValue("int8", 5L, 7L))
                // the second brought to version 2 and its step's current name (docs/DESIGN.md, "Upcasting")
                .addValue("version", new SqlArrayValue("int4", null, 2))
                .addValue("renamed", new SqlArrayValue("text", null, "t"))
                // the first changed its state, the second was upcast (docs/DESIGN.md, "History")
                .addValue("patch", new SqlArrayValue("text", "[{\"op\":\"replace\",\"path\":\"/n\",\"value\":2}]",
                        null))
                .addValue("upcastPatch", new SqlArrayValue("text", null, "[{\"op\":\"remove\",\"path\":\"/old\"}]"))
                .addValue("consumedInstance", new SqlArrayValue("int8", 1001L))
                .addValue("history", true)
                .addValue("node", "node:1");
    }

    /** The parameters of SearchRepository's statements, each criterion unset, as the repository binds them. */
    private static MapSqlParameterSource search() {
        MapSqlParameterSource parameters = new MapSqlParameterSource()
                .addValue("afterId", 0L)
                .addValue("statuses", "{runnable,executing,awaiting_signal,done,failed,cancelled}", Types.OTHER)
                .addValue("suspended", true)
                .addValue("plainRunnable", true)
                .addValue("onlySuspended", false)
                .addValue("limit", 100);
        for (String text : List.of("queue", "machine", "step", "uniqueKey", "correlationKey", "errorContains")) {
            parameters.addValue(text, null, Types.VARCHAR);
        }
        for (String time : List.of("createdFrom", "createdBefore", "updatedFrom", "updatedBefore")) {
            parameters.addValue(time, null, Types.TIMESTAMP_WITH_TIMEZONE);
        }
        return parameters.addValue("version", null, Types.INTEGER).addValue("waitingMs", null, Types.BIGINT);
    }

    /**
     * The plan of a search statement as the engine runs it: planned for the values bound (its criteria are optional,
     * docs/DESIGN.md, "Finding instances"), never from a cached generic plan. A status array is bound as text of
     * unspecified type, as the repository binds it.
     */
    /** TRANSITION_COUNTS planned as the repository runs it: after LOOP_JOINS, in the same transaction. */
    private String explainTraffic(Map<String, Object> window) {
        return new TransactionTemplate(new DataSourceTransactionManager(TestDatabase.dataSource()))
                .execute(status -> {
                    status.setRollbackOnly();
                    jdbc.update(PLANNING.qualify(DiagramRepository.LOOP_JOINS), new MapSqlParameterSource());
                    return explain(DiagramRepository.TRANSITION_COUNTS, new MapSqlParameterSource(window));
                });
    }

    private String explainSearch(String statement, MapSqlParameterSource parameters) {
        if (parameters.getValue("statuses") instanceof String statuses) {
            parameters.addValue("statuses", statuses, Types.OTHER);
        }
        for (String time : List.of("createdFrom", "createdBefore", "updatedFrom", "updatedBefore")) {
            parameters.addValue(time, parameters.getValue(time), Types.TIMESTAMP_WITH_TIMEZONE);
        }
        return explain(freshlyPlanned, statement, parameters);
    }

    private String explain(String statement, MapSqlParameterSource parameters) {
        return explain(jdbc, statement, parameters);
    }

    private String explain(NamedParameterJdbcTemplate jdbc, String statement, MapSqlParameterSource parameters) {
        String sql = PLANNING.qualify(statement);
        List<Map<String, Object>> lines = jdbc.queryForList("EXPLAIN " + sql, parameters);
        String plan = String.join("\n", lines.stream().map(line -> (String) line.get("QUERY PLAN")).toList());
        if (PRINT) {
            printAnalyzed(sql, parameters);
        }
        return plan;
    }

    /** EXPLAIN ANALYZE of the statement, in a transaction rolled back afterwards, printed for the docs. */
    private void printAnalyzed(String sql, MapSqlParameterSource parameters) {
        TransactionTemplate rollingBack = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));
        rollingBack.executeWithoutResult(status -> {
            List<Map<String, Object>> lines = jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql,
                    parameters);
            System.out.println("---- " + sql.lines().findFirst().orElse("").strip() + " on " + ROWS + " rows");
            lines.forEach(line -> System.out.println(line.get("QUERY PLAN")));
            status.setRollbackOnly();
        });
    }
}
