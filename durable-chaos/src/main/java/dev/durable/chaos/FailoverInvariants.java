package dev.durable.chaos;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checks of a failover run: what the driver and the nodes were told had committed, held against what the promoted
 * server holds at the end. The records of what was acknowledged are kept in memory (the driver's) and in the nodes'
 * output, not in the database, because a failover with asynchronous replication may lose database rows, the harness's
 * own tables ({@code chaos.plan}, {@code chaos.delivery}, {@code chaos.effect}) included.
 *
 * <ul>
 *   <li>{@code acknowledged-starts-kept}: every instance {@code startAll} returned exists and ended;</li>
 *   <li>{@code acknowledged-signals-kept}: every acknowledged first signal was seen by its instance's woken step;</li>
 *   <li>{@code acknowledged-cancels-kept}: every instance a cancel answered {@code CANCELLED} for ended cancelled;</li>
 *   <li>{@code committed-transitions-kept}: every outcome a node was told had committed is in the history under its
 *       claim's token (a lost one was run again under another claim: its step ran twice);</li>
 *   <li>{@code nothing-wedged}: no instance is left runnable or executing: whatever exists was carried on.</li>
 * </ul>
 * With synchronous replication each must pass; with asynchronous replication they measure what was lost, and only
 * {@code nothing-wedged} must pass.
 */
final class FailoverInvariants {

    /** What the driver and the nodes were told had committed. */
    record Acknowledged(Map<String, Long> starts, Map<String, String> signals, Map<Long, String> cancels,
            Map<Invariants.Run, Long> transitions, Map<Long, Set<Long>> instancesByToken) {
    }

    private record Row(long id, String status, @Nullable String uniqueKey, @Nullable String result) {
    }

    private final JdbcClient jdbc;
    private final JsonMapper json = JsonMapper.builder().build();

    FailoverInvariants(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    /** The checks, and the counts of the summary line (lost_starts, lost_signals, ..., degraded_ms). */
    Invariants.Report check(Acknowledged acknowledged, Instant primaryKilledAt, @Nullable Instant promotedAt) {
        Map<Long, String> statuses = new HashMap<>();
        Map<Long, Row> byId = new HashMap<>();
        Map<String, Row> byKey = new HashMap<>();
        Set<Long> ticks = new HashSet<>();
        jdbc.sql("SELECT id, status::text AS status, machine, unique_key, result::text AS result"
                + " FROM durable.durable_instance").query((rs, i) -> {
                    Row row = new Row(rs.getLong("id"), rs.getString("status"), rs.getString("unique_key"),
                            rs.getString("result"));
                    statuses.put(row.id(), row.status());
                    byId.put(row.id(), row);
                    if (ChaosMachine.TICKER.equals(rs.getString("machine"))) {
                        ticks.add(row.id());
                    }
                    if (ChaosMachine.NAME.equals(rs.getString("machine")) && row.uniqueKey() != null) {
                        byKey.put(row.uniqueKey(), row);
                    }
                    return null;
                }).list();
        Map<String, Long> counts = new LinkedHashMap<>();
        List<Invariants.Check> checks = new ArrayList<>();
        checks.add(starts(acknowledged.starts(), byId, byKey, counts));
        checks.add(signals(acknowledged.signals(), byKey, counts));
        checks.add(cancels(acknowledged.cancels(), statuses, counts));
        checks.add(transitions(acknowledged.transitions(), acknowledged.instancesByToken(), counts));
        checks.add(nothingWedged(statuses, ticks));
        Timestamp first = jdbc.sql("""
                SELECT min(at) FROM durable.durable_history
                WHERE at >= :killed AND lease_token IS NOT NULL AND event IN ('next', 'retry', 'await', 'done', 'stop')
                """).param("killed", Timestamp.from(primaryKilledAt)).query(Timestamp.class).optional().orElse(null);
        counts.put("degraded_ms", first == null ? -1 : Duration.between(primaryKilledAt, first.toInstant()).toMillis());
        counts.put("promoted_after_ms", promotedAt == null ? -1
                : Duration.between(primaryKilledAt, promotedAt).toMillis());
        return new Invariants.Report(checks, counts);
    }

    /**
     * Every acknowledged start is there under the id it was given and its unique key, and ended. A start that is not
     * was lost with the primary; if its id now names another instance, the id was handed out again (the sequence's
     * position was lost too), and what is addressed by that id (a signal, a cancel) reaches the other instance.
     */
    private static Invariants.Check starts(Map<String, Long> starts, Map<Long, Row> byId, Map<String, Row> byKey,
            Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        Map<String, Long> byStatus = new TreeMap<>();
        long lost = 0;
        long reused = 0;
        for (Map.Entry<String, Long> start : starts.entrySet()) {
            Row row = byKey.get(start.getKey());
            Row holder = byId.get(start.getValue());
            if (row == null || row.id() != start.getValue()) {
                lost++;
                byStatus.merge("lost", 1L, Long::sum);
                boolean other = holder != null && !start.getKey().equals(holder.uniqueKey());
                if (other) {
                    reused++;
                }
                evidence.add("instance " + start.getValue() + " (" + start.getKey() + ") was acknowledged by startAll"
                        + " and is gone" + (other ? "; its id now names another instance (" + holder.uniqueKey()
                        + ", " + holder.status() + ")" : ""));
                continue;
            }
            byStatus.merge(row.status(), 1L, Long::sum);
            if (!row.status().equals("done")) {
                evidence.add("instance " + row.id() + " (" + start.getKey() + ") is " + row.status());
            }
        }
        counts.put("lost_starts", lost);
        counts.put("ids_reused", reused);
        return new Invariants.Check("acknowledged-starts-kept", evidence.isEmpty(), starts.size()
                + " starts acknowledged, now " + byStatus + "; " + reused + " ids of lost ones name other instances",
                evidence);
    }

    /**
     * Every acknowledged first signal was seen by its instance's woken step. One that was not was lost with the
     * primary, and with it its dedup key: a later send with the same key and another payload (the workload's
     * duplicates) is then delivered, and seen instead.
     */
    private Invariants.Check signals(Map<String, String> signals, Map<String, Row> byKey, Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        long lost = 0;
        long ofLostInstances = 0;
        long duplicateSeen = 0;
        for (Map.Entry<String, String> signal : signals.entrySet()) {
            Row row = byKey.get(signal.getKey());
            if (row == null) {
                ofLostInstances++;
                continue; // acknowledged before its instance was lost: counted with the starts
            }
            String expected = "nonce=" + signal.getValue() + " awaited=1";
            String duplicate = "nonce=dup-" + signal.getValue() + " awaited=1";
            List<String> seen = new ArrayList<>();
            if (row.result() != null) {
                ChaosMachine.State state = json.readValue(row.result(), ChaosMachine.State.class);
                state.history().stream().filter(e -> e.step().equals("wait") && e.outcome().equals("next"))
                        .forEach(e -> seen.add(String.valueOf(e.detail())));
            }
            if (!seen.contains(expected)) {
                lost++;
                if (seen.contains(duplicate)) {
                    duplicateSeen++;
                }
                evidence.add("instance " + row.id() + " (" + row.status() + "): its acknowledged signal "
                        + signal.getValue() + " was never seen; seen: " + seen);
            }
        }
        counts.put("lost_signals", lost);
        counts.put("duplicates_seen", duplicateSeen);
        return new Invariants.Check("acknowledged-signals-kept", evidence.isEmpty(), signals.size()
                + " first signals acknowledged; " + lost + " never seen by their instance, " + duplicateSeen
                + " of whose instances saw a later duplicate's payload instead (" + ofLostInstances
                + " more were acknowledged to instances since lost)", evidence);
    }

    private static Invariants.Check cancels(Map<Long, String> cancels, Map<Long, String> statuses,
            Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        long lost = 0;
        long cancelled = 0;
        for (Map.Entry<Long, String> cancel : cancels.entrySet()) {
            if (!cancel.getValue().equals("CANCELLED")) {
                continue;
            }
            cancelled++;
            String status = statuses.getOrDefault(cancel.getKey(), "missing");
            if (!status.equals("cancelled")) {
                lost++;
                evidence.add("instance " + cancel.getKey() + " was answered CANCELLED and is " + status);
            }
        }
        counts.put("lost_cancels", lost);
        return new Invariants.Check("acknowledged-cancels-kept", evidence.isEmpty(), cancels.size()
                + " cancels answered, " + cancelled + " of them CANCELLED; " + lost + " of those did not end cancelled",
                evidence);
    }

    /**
     * Every outcome a node was told had committed is in the history under its claim: its token and step. One that is
     * not was lost with the primary; its instance's step ran again under another claim. A token that the history
     * shows for another instance than the one its node reported was handed out twice (the sequence's position was
     * lost with the primary too).
     */
    private Invariants.Check transitions(Map<Invariants.Run, Long> committed, Map<Long, Set<Long>> instancesByToken,
            Map<String, Long> counts) {
        Map<Invariants.Run, Set<Long>> history = new HashMap<>();
        jdbc.sql("SELECT instance_id, lease_token, step FROM durable.durable_history WHERE lease_token IS NOT NULL")
                .query((rs, i) -> history.computeIfAbsent(new Invariants.Run(rs.getLong("lease_token"),
                        rs.getString("step")), k -> new HashSet<>()).add(rs.getLong("instance_id"))).list();
        List<String> evidence = new ArrayList<>();
        long lost = 0;
        long reused = 0;
        for (Map.Entry<Invariants.Run, Long> transition : committed.entrySet()) {
            Set<Long> instances = history.getOrDefault(transition.getKey(), Set.of());
            if (!instances.contains(transition.getValue())) {
                lost++;
                evidence.add("instance " + transition.getValue() + ": " + transition.getKey()
                        + " was committed, is not in the history");
            }
            if (instances.stream().anyMatch(id -> id != transition.getValue().longValue())) {
                reused++;
                evidence.add("token " + transition.getKey().token() + " of instance " + transition.getValue()
                        + " names a transition of instance " + instances + " too");
            }
        }
        // The nodes' own reports: a token they used for two instances (a claim committed or fenced on the old primary,
        // another on the new one) was drawn twice, whatever the history kept.
        for (Map.Entry<Long, Set<Long>> token : instancesByToken.entrySet()) {
            if (token.getValue().size() > 1) {
                reused++;
                evidence.add("token " + token.getKey() + " was used by claims of instances " + token.getValue());
            }
        }
        counts.put("lost_transitions", lost);
        counts.put("tokens_reused", reused);
        return new Invariants.Check("committed-transitions-kept", evidence.isEmpty(), committed.size()
                + " outcomes acknowledged to the nodes; " + lost + " missing from the history (their steps ran again),"
                + " " + reused + " lease tokens handed out twice", evidence);
    }

    /** The schedule's tick instances are left out: the schedule starts one every second until the nodes stop. */
    private static Invariants.Check nothingWedged(Map<Long, String> statuses, Set<Long> ticks) {
        Map<String, Long> byStatus = new TreeMap<>();
        statuses.values().forEach(status -> byStatus.merge(status, 1L, Long::sum));
        List<String> evidence = new ArrayList<>();
        statuses.forEach((id, status) -> {
            if (!ticks.contains(id) && (status.equals("runnable") || status.equals("executing"))) {
                evidence.add("instance " + id + " is still " + status);
            }
        });
        return new Invariants.Check("nothing-wedged", evidence.isEmpty(), statuses.size() + " instances by status "
                + byStatus + "; none left runnable or executing", evidence);
    }
}
