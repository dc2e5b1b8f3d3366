package dev.durable.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checks of the families and cancels of a chaos run ({@link FamilyMachines}, {@link FamilyWorkload}), made from
 * the database, and its instance history, once every node has stopped (docs/RELIABILITY.md).
 */
final class FamilyInvariants {

    private static final Set<String> UNFINISHED = Set.of("runnable", "executing", "awaiting_signal");
    private static final Set<String> OUTCOMES = Set.of("next", "retry", "await", "done", "stop");

    private record Row(long id, String machine, String status, @Nullable Long parentId,
            @Nullable Boolean cancelWithParent, int childrenStarted, int childrenEnded, @Nullable String result,
            @Nullable String lastError) {
    }

    private record HistoryRow(long id, long instanceId, String event, @Nullable String error) {
    }

    private record CancelRow(long instanceId, String role, String result, int attempts) {
    }

    private final JdbcClient jdbc;
    private final JsonMapper json = JsonMapper.builder().build();

    FamilyInvariants(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    /** The checks, and their counts for the summary line. */
    List<Invariants.Check> check(Map<String, Long> counts) {
        Map<Long, Row> rows = new HashMap<>();
        jdbc.sql("""
                SELECT id, machine, status::text AS status, parent_id, cancel_with_parent, children_started,
                       children_ended, result::text AS result, last_error
                FROM durable.durable_instance WHERE machine IN (:parent, :member)
                """)
                .param("parent", FamilyMachines.PARENT).param("member", FamilyMachines.MEMBER)
                .query((rs, i) -> new Row(rs.getLong("id"), rs.getString("machine"), rs.getString("status"),
                        rs.getObject("parent_id", Long.class), rs.getObject("cancel_with_parent", Boolean.class),
                        rs.getInt("children_started"), rs.getInt("children_ended"), rs.getString("result"),
                        rs.getString("last_error")))
                .list().forEach(row -> rows.put(row.id(), row));
        Map<Long, List<HistoryRow>> history = new HashMap<>();
        jdbc.sql("SELECT id, instance_id, event, error FROM durable.durable_history ORDER BY id")
                .query((rs, i) -> new HistoryRow(rs.getLong("id"), rs.getLong("instance_id"), rs.getString("event"),
                        rs.getString("error")))
                .list().forEach(entry -> history.computeIfAbsent(entry.instanceId(), k -> new ArrayList<>()).add(entry));
        List<CancelRow> cancels = jdbc.sql("SELECT instance_id, role, result, attempts FROM chaos.cancel")
                .query((rs, i) -> new CancelRow(rs.getLong("instance_id"), rs.getString("role"),
                        rs.getString("result"), rs.getInt("attempts")))
                .list();
        Map<Long, List<Row>> children = new HashMap<>();
        rows.values().stream().filter(row -> row.parentId() != null)
                .forEach(row -> children.computeIfAbsent(row.parentId(), k -> new ArrayList<>()).add(row));

        List<Invariants.Check> checks = new ArrayList<>();
        checks.add(familiesEnded(rows, children, counts));
        checks.add(joinSawAllChildrenEnded(rows, children, history, counts));
        checks.add(cancelIsLast(history, cancels, rows, counts));
        return checks;
    }

    /**
     * Every family ended: no parent or member is unfinished; a parent is done or cancelled; the members of a cancelled
     * parent are all ended (the cascade left none running).
     */
    private static Invariants.Check familiesEnded(Map<Long, Row> rows, Map<Long, List<Row>> children,
            Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        Map<String, Long> byStatus = new TreeMap<>();
        for (Row row : rows.values()) {
            byStatus.merge(row.machine() + ":" + row.status(), 1L, Long::sum);
            if (UNFINISHED.contains(row.status())) {
                evidence.add(row.machine() + " " + row.id() + " is still " + row.status());
            }
            if (row.machine().equals(FamilyMachines.PARENT) && row.status().equals("failed")) {
                evidence.add("parent " + row.id() + " failed: " + row.lastError());
            }
        }
        long parents = rows.values().stream().filter(row -> row.machine().equals(FamilyMachines.PARENT)).count();
        counts.put("families", parents);
        counts.put("family_members", (long) rows.size() - parents);
        return new Invariants.Check("families-ended", evidence.isEmpty(), parents + " families, " + (rows.size()
                - parents) + " members, by status " + byStatus, evidence);
    }

    /**
     * Every parent that completed its join saw each of its children ended: its pick counted as many ended children as
     * it had started, its read of them found exactly its children (by id, as the database holds them) each in an
     * ended status, and the join committed once (its history holds one park and one done). Fan-in wakes the parent
     * exactly once, and only when the last child has ended. Between the park and the done the history may hold
     * retries whose error is the database's (the join's read of its children met a restart or a crash of PostgreSQL,
     * and the retry policy ran the join again); any other retry is a violation.
     */
    private Invariants.Check joinSawAllChildrenEnded(Map<Long, Row> rows, Map<Long, List<Row>> children,
            Map<Long, List<HistoryRow>> history, Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        long joins = 0;
        long joinRetries = 0;
        for (Row parent : rows.values()) {
            if (!parent.machine().equals(FamilyMachines.PARENT) || !parent.status().equals("done")) {
                continue;
            }
            joins++;
            List<Row> own = children.getOrDefault(parent.id(), List.of());
            FamilyMachines.Joined joined;
            try {
                joined = json.readValue(parent.result(), FamilyMachines.Joined.class);
            } catch (RuntimeException e) {
                evidence.add("parent " + parent.id() + ": result unreadable: " + e.getMessage());
                continue;
            }
            if (joined.started() != own.size() || joined.ended() != own.size()
                    || parent.childrenStarted() != own.size() || parent.childrenEnded() != own.size()) {
                evidence.add("parent " + parent.id() + " has " + own.size() + " children; its join counted "
                        + joined.ended() + "/" + joined.started() + ", its row " + parent.childrenEnded() + "/"
                        + parent.childrenStarted());
            }
            Map<Long, String> seen = new TreeMap<>();
            joined.seen().forEach(child -> seen.put(child.id(), child.status()));
            if (!seen.keySet().equals(new TreeSet<>(own.stream().map(Row::id).toList()))) {
                evidence.add("parent " + parent.id() + " saw children " + seen.keySet() + ", has "
                        + own.stream().map(Row::id).sorted().toList());
            }
            seen.forEach((id, status) -> {
                if (UNFINISHED.contains(status)) {
                    evidence.add("parent " + parent.id() + "'s join saw child " + id + " " + status);
                }
            });
            List<HistoryRow> committed = history.getOrDefault(parent.id(), List.of()).stream()
                    .filter(entry -> OUTCOMES.contains(entry.event())).toList();
            List<String> outcomes = committed.stream()
                    .filter(entry -> !(entry.event().equals("retry") && databaseError(entry.error())))
                    .map(HistoryRow::event).toList();
            joinRetries += committed.size() - outcomes.size();
            if (!outcomes.equals(List.of("await", "done"))) {
                evidence.add("parent " + parent.id() + " committed " + outcomes + ", expected [await, done]; its"
                        + " retries' errors: " + committed.stream().filter(entry -> entry.event().equals("retry"))
                        .map(HistoryRow::error).toList());
            }
        }
        counts.put("joins", joins);
        return new Invariants.Check("join-saw-all-children-ended", evidence.isEmpty(), joins + " joins, each woken "
                + "once, after and seeing every one of its children ended (" + joinRetries + " retried after a"
                + " database error)", evidence);
    }

    /** Whether a retry's recorded error is the database's: a JDBC or connection failure, not the machine's own. */
    private static boolean databaseError(@Nullable String error) {
        if (error == null) {
            return false;
        }
        String text = error.toLowerCase(Locale.ROOT);
        return text.contains("dataaccess") || text.contains("jdbc") || text.contains("psqlexception")
                || text.contains("sqlexception") || text.contains("connection");
    }

    /**
     * A cancelled instance has no committed transition after its cancel: its history's cancel entry is its last (the
     * history is written in the transaction of each transition, and an instance's transitions are serialized by its
     * row lock, so entry order is commit order), there is one, and the row is cancelled. Every cancel the driver was
     * told took effect (cancelled now or before) holds: the instance is cancelled; one refused as ended found it done
     * or failed.
     */
    private static Invariants.Check cancelIsLast(Map<Long, List<HistoryRow>> history, List<CancelRow> cancels,
            Map<Long, Row> rows, Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        long cancelled = 0;
        for (Map.Entry<Long, List<HistoryRow>> entry : history.entrySet()) {
            List<HistoryRow> entries = entry.getValue();
            long cancelEntries = entries.stream().filter(e -> e.event().equals("cancel")).count();
            if (cancelEntries == 0) {
                continue;
            }
            cancelled++;
            HistoryRow last = entries.get(entries.size() - 1);
            if (cancelEntries > 1 || !last.event().equals("cancel")) {
                evidence.add("instance " + entry.getKey() + " committed after its cancel: "
                        + entries.stream().map(HistoryRow::event).toList());
            }
            Row row = rows.get(entry.getKey());
            if (row != null && !row.status().equals("cancelled")) {
                evidence.add("instance " + entry.getKey() + " has a cancel in its history but is " + row.status());
            }
        }
        Map<String, Long> answers = new TreeMap<>();
        for (CancelRow cancel : cancels) {
            answers.merge(cancel.role() + ":" + cancel.result(), 1L, Long::sum);
            Row row = rows.get(cancel.instanceId());
            String status = row == null ? "missing" : row.status();
            boolean held = switch (cancel.result()) {
                case "CANCELLED", "ALREADY_CANCELLED" -> status.equals("cancelled");
                case "REFUSED_TERMINAL_INSTANCE" -> status.equals("done") || status.equals("failed");
                default -> false;
            };
            if (!held) {
                evidence.add("a cancel of " + cancel.role() + " " + cancel.instanceId() + " answered "
                        + cancel.result() + " after " + cancel.attempts() + " attempts, yet it is " + status);
            }
        }
        counts.put("cancels", (long) cancels.size());
        counts.put("cancelled", cancelled);
        return new Invariants.Check("cancel-is-last", evidence.isEmpty(), cancelled + " instances cancelled (cascades "
                + "included), none committed a transition after its cancel; the driver's cancels by answer "
                + answers + " all hold", evidence);
    }
}
