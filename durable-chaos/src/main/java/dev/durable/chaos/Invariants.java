package dev.durable.chaos;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checks of a chaos run, made from the database once every node has stopped, plus what the nodes reported
 * (outcomes they did not apply) and what the orchestrator did (which processes it killed, paused or stopped).
 * Each check prints its name, PASS or FAIL, and evidence; see {@code docs/RELIABILITY.md} for what each one means.
 */
final class Invariants {

    /**
     * Which execution: the claim's token and the step. One claim runs one step, or, when its node runs next steps
     * inline, a chain of different steps on the same claim.
     */
    record Run(long token, String step) {

        static Run of(ChaosMachine.Entry entry) {
            return new Run(entry.token(), entry.step());
        }
    }

    /** One execution of a step, from the effect log. */
    record Attempt(long token, long instanceId, String step, int attempt, String node, long pid, Instant start,
            @Nullable Instant end, @Nullable String outcome) {

        Run run() {
            return new Run(token, step);
        }
    }

    record PlanRow(long instanceId, int seq, @Nullable String partitionKey, int retries, int errors, int sleepMs,
            int deadlineMs, String nonce, String mode, boolean duplicate) {
    }

    record Delivery(long instanceId, String nonce, boolean duplicate, String result, int attempts, Instant sentAt) {
    }

    record InstanceRow(long id, String status, @Nullable String partitionKey, @Nullable Long leaseToken,
            @Nullable String result, @Nullable String lastError) {
    }

    /** What the nodes and the orchestrator know and the database does not. */
    record Witness(Map<Run, String> unapplied, Set<Long> killedPids, Map<Long, List<Instant[]>> pauses,
            Map<Long, Instant> stoppedAt) {
    }

    /** The result of one check. */
    record Check(String name, boolean passed, String summary, List<String> evidence) {

        String describe() {
            StringBuilder text = new StringBuilder("check " + name + ": " + (passed ? "PASS" : "FAIL") + " - "
                    + summary);
            evidence.stream().limit(20).forEach(line -> text.append("\n    ").append(line));
            if (evidence.size() > 20) {
                text.append("\n    ... and ").append(evidence.size() - 20).append(" more");
            }
            return text.toString();
        }
    }

    /** Everything the checks found; counts go into the summary line. */
    record Report(List<Check> checks, Map<String, Long> counts) {

        int violations() {
            return (int) checks.stream().filter(check -> !check.passed()).count();
        }
    }

    private final JdbcClient jdbc;
    private final JsonMapper json = JsonMapper.builder().build();

    Invariants(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    Report check(Witness witness) {
        Map<Long, PlanRow> plans = load("SELECT * FROM chaos.plan", (rs, i) -> new PlanRow(rs.getLong("instance_id"),
                rs.getInt("seq"), rs.getString("partition_key"), rs.getInt("retries"), rs.getInt("errors"),
                rs.getInt("sleep_ms"), rs.getInt("deadline_ms"), rs.getString("nonce"), rs.getString("mode"), rs.getBoolean("duplicate")), PlanRow::instanceId);
        Map<Long, InstanceRow> rows = load("""
                SELECT id, status::text AS status, partition_key, lease_token, result::text AS result, last_error
                FROM durable.durable_instance WHERE machine = '%s'
                """.formatted(ChaosMachine.NAME), (rs, i) -> new InstanceRow(rs.getLong("id"), rs.getString("status"),
                rs.getString("partition_key"), (Long) rs.getObject("lease_token"), rs.getString("result"),
                rs.getString("last_error")),
                InstanceRow::id);
        List<Attempt> attempts = jdbc.sql("SELECT * FROM chaos.effect ORDER BY started_at").query((rs, i) ->
                new Attempt(rs.getLong("token"), rs.getLong("instance_id"), rs.getString("step"),
                        rs.getInt("attempt"), rs.getString("node"), rs.getLong("pid"),
                        rs.getObject("started_at", OffsetDateTime.class).toInstant(),
                        instantOrNull(rs.getObject("ended_at", OffsetDateTime.class)), rs.getString("outcome")))
                .list();
        List<Delivery> deliveries = jdbc.sql("SELECT * FROM chaos.delivery ORDER BY id").query((rs, i) ->
                new Delivery(rs.getLong("instance_id"), rs.getString("nonce"), rs.getBoolean("duplicate"),
                        rs.getString("result"), rs.getInt("attempts"),
                        rs.getObject("sent_at", OffsetDateTime.class).toInstant())).list();

        Map<Long, ChaosMachine.State> finals = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        rows.values().forEach(row -> {
            if (row.result() != null) {
                try {
                    finals.put(row.id(), json.readValue(row.result(), ChaosMachine.State.class));
                } catch (RuntimeException e) {
                    unreadable.add("instance " + row.id() + ": result unreadable: " + e.getMessage());
                }
            }
        });
        Map<Run, Attempt> byRun = attempts.stream().collect(Collectors.toMap(Attempt::run, a -> a));
        Set<Run> committed = new HashSet<>();
        finals.values().forEach(state -> state.history().forEach(entry -> committed.add(Run.of(entry))));

        List<Check> checks = new ArrayList<>();
        checks.add(allDone(plans, rows, unreadable));
        checks.add(exactPath(plans, finals));
        checks.add(committedClaims(plans, rows, finals, byRun));
        Map<String, Long> counts = new LinkedHashMap<>();
        checks.add(noUnappliedOutcomeCommitted(witness, committed, byRun, counts));
        checks.add(noLostResults(attempts, committed, witness));
        checks.add(signals(plans, finals, deliveries));
        checks.add(timersNeverEarly(plans, finals, attempts, byRun));
        checks.add(deadlinesOnlyWithoutSignal(plans, finals, deliveries, byRun, counts));
        OverlapResult partitions = overlaps(attempts, committed, witness,
                attempt -> rows.containsKey(attempt.instanceId()) ? rows.get(attempt.instanceId()).partitionKey()
                        : null);
        checks.add(new Check("partition-key-exclusive", partitions.committedPairs.isEmpty(),
                partitions.committedPairs.size() + " overlaps between committed attempts of one partition key; "
                        + "all attempts (fenced, crashed, released included): " + partitions.allPairs + " overlaps "
                        + partitions.byFate, partitions.committedPairs));
        OverlapResult instances = overlaps(attempts, committed, witness, attempt -> "i" + attempt.instanceId());
        checks.add(new Check("instance-exclusive", instances.committedPairs.isEmpty(),
                instances.committedPairs.size() + " overlaps between committed attempts of one instance; all "
                        + "attempts: " + instances.allPairs + " overlaps " + instances.byFate,
                instances.committedPairs));

        checks.add(onePerTick(counts));
        counts.put("executions", (long) attempts.size());
        counts.put("committed", (long) committed.size());
        counts.put("duplicate_executions", (long) attempts.size() - committed.stream()
                .filter(byRun::containsKey).count());
        counts.put("overlaps_all", (long) partitions.allPairs);
        counts.put("dup_signals_deduplicated", deliveries.stream()
                .filter(d -> d.duplicate() && d.result().equals("DEDUPLICATED")).count());
        counts.put("dup_signals_after_consumption", deliveries.stream()
                .filter(d -> d.duplicate() && d.result().equals("DELIVERED")).count());
        counts.put("dup_signals_refused_terminal", deliveries.stream()
                .filter(d -> d.duplicate() && d.result().startsWith("REFUSED")).count());
        counts.put("early_signals", plans.values().stream().filter(p -> p.mode().equals("EARLY")).count());
        return new Report(checks, counts);
    }

    /**
     * The every-second schedule missed no tick and started none twice: the ticks of its instances, by their unique
     * keys, are consecutive seconds with one instance each, from the first to the last, across every kill and
     * restart (its miss policy is run-each, so a tick found late is still started).
     */
    private Check onePerTick(Map<String, Long> counts) {
        List<String> keys = jdbc.sql("SELECT unique_key FROM durable.durable_instance WHERE machine = :machine")
                .param("machine", ChaosMachine.TICKER).query(String.class).list();
        String prefix = "schedule:" + ChaosMachine.TICK_SCHEDULE + ":";
        List<String> evidence = new ArrayList<>();
        Map<Instant, Integer> perTick = new TreeMap<>();
        for (String key : keys) {
            if (key == null || !key.startsWith(prefix)) {
                evidence.add("a ticker instance with unique key " + key);
                continue;
            }
            perTick.merge(Instant.parse(key.substring(prefix.length())), 1, Integer::sum);
        }
        perTick.forEach((tick, n) -> {
            if (n > 1) {
                evidence.add(n + " instances for tick " + tick);
            }
        });
        Instant previous = null;
        for (Instant tick : perTick.keySet()) {
            if (previous != null && !tick.equals(previous.plusSeconds(1))) {
                evidence.add("no instance for the ticks after " + previous + " until " + tick);
            }
            previous = tick;
        }
        if (perTick.size() < 10) {
            evidence.add("only " + perTick.size() + " ticks fired");
        }
        counts.put("schedule_ticks", (long) perTick.size());
        return new Check("schedule-one-per-tick", evidence.isEmpty(), perTick.size() + " ticks of schedule "
                + ChaosMachine.TICK_SCHEDULE + (perTick.isEmpty() ? "" : " from " + perTick.keySet().iterator().next()
                + " to " + previous) + ", one instance each", evidence);
    }

    private static Check allDone(Map<Long, PlanRow> plans, Map<Long, InstanceRow> rows, List<String> unreadable) {
        List<String> evidence = new ArrayList<>(unreadable);
        Map<String, Long> byStatus = new TreeMap<>();
        for (PlanRow plan : plans.values()) {
            InstanceRow row = rows.get(plan.instanceId());
            String status = row == null ? "missing" : row.status();
            byStatus.merge(status, 1L, Long::sum);
            if (!"done".equals(status)) {
                evidence.add("instance " + plan.instanceId() + " is " + status
                        + (row == null || row.lastError() == null ? "" : " (" + row.lastError() + ")"));
            }
        }
        if (rows.size() != plans.size()) {
            evidence.add(rows.size() + " instance rows for " + plans.size() + " planned instances");
        }
        return new Check("all-done", evidence.isEmpty(), plans.size() + " planned instances by status " + byStatus,
                evidence);
    }

    private static Check exactPath(Map<Long, PlanRow> plans, Map<Long, ChaosMachine.State> finals) {
        List<String> evidence = new ArrayList<>();
        for (PlanRow plan : plans.values()) {
            ChaosMachine.State state = finals.get(plan.instanceId());
            if (state == null) {
                continue; // all-done reports it
            }
            List<List<String>> allowed = ChaosMachine.allowedPaths(plan.retries(), plan.errors(), plan.deadlineMs());
            List<String> actual = state.history().stream().map(ChaosMachine.Entry::label).toList();
            if (!allowed.contains(actual)) {
                evidence.add("instance " + plan.instanceId() + ": expected one of " + allowed + ", committed "
                        + actual);
            }
            if (state.retries() != plan.retries() || state.errors() != plan.errors()
                    || state.sleepMs() != plan.sleepMs() || state.deadlineMs() != plan.deadlineMs()) {
                evidence.add("instance " + plan.instanceId() + ": state plan " + state.retries() + "/"
                        + state.errors() + " differs from the driver's " + plan.retries() + "/" + plan.errors());
            }
        }
        return new Check("exact-path", evidence.isEmpty(), "every committed history equals its planned path, each "
                + "transition exactly once", evidence);
    }

    /**
     * Each committed transition came from a claim that really ran that step to its end, claims follow each other
     * (tokens increase along the history; a token repeats only right after a {@code next}, when the node ran the
     * next step inline on the same claim), and the row kept the token of the claim that ended it.
     */
    private static Check committedClaims(Map<Long, PlanRow> plans, Map<Long, InstanceRow> rows,
            Map<Long, ChaosMachine.State> finals, Map<Run, Attempt> byRun) {
        List<String> evidence = new ArrayList<>();
        for (PlanRow plan : plans.values()) {
            ChaosMachine.State state = finals.get(plan.instanceId());
            if (state == null || state.history().isEmpty()) {
                continue;
            }
            ChaosMachine.Entry previous = null;
            for (ChaosMachine.Entry entry : state.history()) {
                if (previous != null && (entry.token() < previous.token() || (entry.token() == previous.token()
                        && !previous.outcome().equals("next")))) {
                    evidence.add("instance " + plan.instanceId() + ": claim " + entry.token() + " of "
                            + entry.label() + " does not follow claim " + previous.token() + " of "
                            + previous.label());
                }
                previous = entry;
                Attempt attempt = byRun.get(Run.of(entry));
                if (attempt == null) {
                    evidence.add("instance " + plan.instanceId() + ": " + entry.label() + " by claim " + entry.token()
                            + " has no execution in the effect log");
                } else if (attempt.instanceId() != plan.instanceId() || !attempt.step().equals(entry.step())
                        || attempt.attempt() != entry.attempt() || attempt.end() == null
                        || !entry.node().endsWith("/" + attempt.pid())) {
                    evidence.add("instance " + plan.instanceId() + ": " + entry + " does not match its execution "
                            + attempt);
                }
            }
            ChaosMachine.Entry last = state.history().get(state.history().size() - 1);
            Long rowToken = rows.get(plan.instanceId()).leaseToken();
            if (!Objects.equals(rowToken, last.token())) {
                evidence.add("instance " + plan.instanceId() + ": row token " + rowToken + " is not the last "
                        + "committed claim's " + last.token());
            }
        }
        return new Check("committed-claims", evidence.isEmpty(), "each committed transition names a claim that ran "
                + "that step to its end; tokens increase; the row keeps the last claim's token", evidence);
    }

    /**
     * FENCED (the fence matched no row: the lease was lost) and DISCARDED (never written: released at shutdown, or
     * the step died of an Error) are definite: such an outcome must not be in any committed history. ABANDONED is
     * not: the writer gave up after failures that may have struck after COMMIT was sent, so the outcome may have
     * been applied after all; those are counted, not held against the engine.
     */
    private static Check noUnappliedOutcomeCommitted(Witness witness, Set<Run> committed,
            Map<Run, Attempt> byRun, Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        long abandonedButApplied = 0;
        for (Map.Entry<Run, String> reported : witness.unapplied().entrySet()) {
            Run run = reported.getKey();
            if (!committed.contains(run)) {
                continue;
            }
            if (reported.getValue().equals("abandoned")) {
                abandonedButApplied++;
            } else {
                evidence.add("claim " + run.token() + " (step " + run.step() + ") was reported "
                        + reported.getValue() + " by its node, yet its transition is committed: " + byRun.get(run));
            }
        }
        counts.put("abandoned_but_applied", abandonedButApplied);
        Map<String, Long> kinds = witness.unapplied().values().stream()
                .collect(Collectors.groupingBy(k -> k, TreeMap::new, Collectors.counting()));
        return new Check("no-fenced-outcome-applied", evidence.isEmpty(), "outcomes the nodes reported not applied "
                + kinds + "; no fenced or discarded one is in a committed history (" + abandonedButApplied
                + " abandoned ones were applied by a commit whose answer was lost)", evidence);
    }

    /**
     * An execution that ran to its end but whose transition is not committed must be explained: its node reported
     * the outcome fenced, abandoned or discarded, or the orchestrator killed its process before it could report.
     * Anything else would be a step result lost without a trace.
     */
    private static Check noLostResults(List<Attempt> attempts, Set<Run> committed, Witness witness) {
        List<String> evidence = new ArrayList<>();
        long explained = 0;
        for (Attempt attempt : attempts) {
            if (attempt.end() == null || committed.contains(attempt.run())) {
                continue;
            }
            if (witness.unapplied().containsKey(attempt.run())
                    || witness.killedPids().contains(attempt.pid())) {
                explained++;
            } else {
                evidence.add("execution " + attempt + " ended, is not committed, and nothing explains it");
            }
        }
        return new Check("no-lost-results", evidence.isEmpty(), explained + " finished but uncommitted executions, "
                + "each reported not applied by its node or cut short by a SIGKILL", evidence);
    }

    private static Check signals(Map<Long, PlanRow> plans, Map<Long, ChaosMachine.State> finals,
            List<Delivery> deliveries) {
        List<String> evidence = new ArrayList<>();
        Map<Long, List<Delivery>> firsts = deliveries.stream().filter(d -> !d.duplicate())
                .collect(Collectors.groupingBy(Delivery::instanceId));
        for (PlanRow plan : plans.values()) {
            List<Delivery> sent = firsts.getOrDefault(plan.instanceId(), List.of());
            if (sent.size() != 1) {
                evidence.add("instance " + plan.instanceId() + ": " + sent.size() + " first deliveries recorded");
                continue;
            }
            Delivery first = sent.get(0);
            boolean acknowledged = first.result().equals("DELIVERED")
                    || (first.result().equals("DEDUPLICATED") && first.attempts() > 1);
            if (!acknowledged) {
                evidence.add("instance " + plan.instanceId() + ": its signal was " + first.result() + " after "
                        + first.attempts() + " attempts");
            }
            ChaosMachine.State state = finals.get(plan.instanceId());
            if (state == null) {
                continue;
            }
            String expected = "nonce=" + plan.nonce() + " awaited=1";
            List<String> seen = state.history().stream()
                    .filter(e -> e.step().equals("wait") && e.outcome().equals("next"))
                    .map(e -> String.valueOf(e.detail())).toList();
            if (!seen.equals(List.of(expected))) {
                evidence.add("instance " + plan.instanceId() + ": the woken step saw " + seen + ", expected ["
                        + expected + "]");
            }
        }
        long duplicates = deliveries.stream().filter(Delivery::duplicate).count();
        return new Check("signals-delivered-once", evidence.isEmpty(), plans.size() + " signals acknowledged and "
                + "each seen by its woken step exactly once with its own payload; " + duplicates
                + " duplicate sends (same dedup key, other payload) never seen", evidence);
    }

    /**
     * A durable timer never fires early: every execution of {@code reserve} (committed or not) of an instance that
     * slept after {@code prepare} started at least {@code sleepMs} after the committed {@code prepare} execution
     * ended (its outcome, and so the timer's start, was committed later still). One clock: the database's.
     */
    private static Check timersNeverEarly(Map<Long, PlanRow> plans, Map<Long, ChaosMachine.State> finals,
            List<Attempt> attempts, Map<Run, Attempt> byRun) {
        List<String> evidence = new ArrayList<>();
        Map<Long, Instant> firstReserve = new HashMap<>();
        attempts.stream().filter(a -> a.step().equals("reserve"))
                .forEach(a -> firstReserve.merge(a.instanceId(), a.start(), (x, y) -> x.isBefore(y) ? x : y));
        int timers = 0;
        for (PlanRow plan : plans.values()) {
            ChaosMachine.State state = finals.get(plan.instanceId());
            if (plan.sleepMs() == 0 || state == null) {
                continue;
            }
            Attempt prepare = state.history().stream().filter(e -> e.label().equals("prepare:next")).findFirst()
                    .map(e -> byRun.get(Run.of(e))).orElse(null);
            Instant reserve = firstReserve.get(plan.instanceId());
            if (prepare == null || prepare.end() == null || reserve == null) {
                continue; // committed-claims and no-lost-results report a missing execution
            }
            timers++;
            Instant due = prepare.end().plusMillis(plan.sleepMs());
            if (reserve.isBefore(due)) {
                evidence.add("instance " + plan.instanceId() + ": reserve started at " + reserve + ", "
                        + java.time.Duration.between(reserve, due).toMillis() + " ms before its timer of "
                        + plan.sleepMs() + " ms was due");
            }
        }
        return new Check("timers-never-early", evidence.isEmpty(), timers + " durable timers; none ran its step before"
                + " it was due", evidence);
    }

    /**
     * An await deadline fires only if no awaited signal was delivered before it: for every instance whose history
     * holds {@code wait:timeout}, the driver's signal was acknowledged only after the deadline (the deadline is at
     * least the committed {@code wait:await} execution's end plus the timeout; the acknowledgement is before the
     * delivery's {@code sent_at}). The signals check already proves that the timed-out instance still saw its signal.
     */
    private static Check deadlinesOnlyWithoutSignal(Map<Long, PlanRow> plans, Map<Long, ChaosMachine.State> finals,
            List<Delivery> deliveries, Map<Run, Attempt> byRun, Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        Map<Long, Delivery> firsts = new HashMap<>();
        deliveries.stream().filter(d -> !d.duplicate()).forEach(d -> firsts.put(d.instanceId(), d));
        long withDeadline = 0;
        long fired = 0;
        for (PlanRow plan : plans.values()) {
            ChaosMachine.State state = finals.get(plan.instanceId());
            if (state == null || plan.deadlineMs() == 0) {
                continue;
            }
            withDeadline++;
            boolean timedOut = state.history().stream().anyMatch(e -> e.label().equals("wait:timeout"));
            if (!timedOut) {
                continue;
            }
            fired++;
            Attempt parked = state.history().stream().filter(e -> e.label().equals("wait:await")).findFirst()
                    .map(e -> byRun.get(Run.of(e))).orElse(null);
            Delivery signal = firsts.get(plan.instanceId());
            if (parked == null || parked.end() == null || signal == null) {
                continue; // reported by the other checks
            }
            Instant earliestDeadline = parked.end().plusMillis(plan.deadlineMs());
            if (signal.sentAt().isBefore(earliestDeadline)) {
                evidence.add("instance " + plan.instanceId() + ": timed out, but its signal was acknowledged by "
                        + signal.sentAt() + ", before the deadline (at the earliest " + earliestDeadline + ")");
            }
        }
        counts.put("deadlines", withDeadline);
        counts.put("deadlines_fired", fired);
        return new Check("deadlines-only-without-signal", evidence.isEmpty(), fired + " of " + withDeadline
                + " await deadlines fired, each only when no signal had been acknowledged before it", evidence);
    }

    private record OverlapResult(List<String> committedPairs, int allPairs, Map<String, Integer> byFate) {
    }

    /**
     * Overlapping executions within each group (a partition key, or an instance). Executions whose transition is
     * committed must never overlap. Other executions may: a step of a paused, killed or cut-off node goes on (or
     * looks as if it did) after its lease expired and its row moved on; they are counted by fate. An execution
     * without an end lasts until its process was killed or stopped.
     */
    private static OverlapResult overlaps(List<Attempt> attempts, Set<Run> committed, Witness witness,
            Function<Attempt, @Nullable String> group) {
        Map<String, List<Attempt>> groups = new HashMap<>();
        for (Attempt attempt : attempts) {
            String key = group.apply(attempt);
            if (key != null) {
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(attempt);
            }
        }
        List<String> committedPairs = new ArrayList<>();
        Map<String, Integer> byFate = new TreeMap<>();
        int all = 0;
        for (Map.Entry<String, List<Attempt>> entry : groups.entrySet()) {
            List<Attempt> sorted = new ArrayList<>(entry.getValue());
            sorted.sort(Comparator.comparing(Attempt::start));
            List<Attempt> active = new ArrayList<>();
            for (Attempt current : sorted) {
                active.removeIf(earlier -> !end(earlier, witness).isAfter(current.start()));
                for (Attempt earlier : active) {
                    all++;
                    boolean bothCommitted = committed.contains(earlier.run())
                            && committed.contains(current.run());
                    if (bothCommitted) {
                        committedPairs.add(entry.getKey() + ": " + earlier + " overlaps " + current);
                    } else {
                        Attempt uncommitted = committed.contains(earlier.run()) ? current : earlier;
                        byFate.merge(fate(uncommitted, witness), 1, Integer::sum);
                    }
                }
                active.add(current);
            }
        }
        return new OverlapResult(committedPairs, all, byFate);
    }

    private static Instant end(Attempt attempt, Witness witness) {
        if (attempt.end() != null) {
            return attempt.end();
        }
        Instant stopped = witness.stoppedAt().get(attempt.pid());
        return stopped != null && stopped.isAfter(attempt.start()) ? stopped : attempt.start();
    }

    private static String fate(Attempt attempt, Witness witness) {
        String reported = witness.unapplied().get(attempt.run());
        boolean paused = witness.pauses().getOrDefault(attempt.pid(), List.of()).stream()
                .anyMatch(p -> p[0].isBefore(end(attempt, witness)) && p[1].isAfter(attempt.start()));
        String base = reported != null ? reported
                : witness.killedPids().contains(attempt.pid()) ? "killed"
                : attempt.end() == null ? "stopped" : "unexplained";
        return paused ? base + "-while-paused" : base;
    }

    private <K, V> Map<K, V> load(String sql, org.springframework.jdbc.core.RowMapper<V> mapper,
            Function<V, K> key) {
        Map<K, V> map = new LinkedHashMap<>();
        jdbc.sql(sql).query(mapper).list().forEach(value -> map.put(key.apply(value), value));
        return map;
    }

    private static @Nullable Instant instantOrNull(@Nullable OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }
}
