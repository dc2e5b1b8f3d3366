package dev.durable.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The check of the rolling deploy ({@link DeployMachines}, {@link DeployWorkload}), made from the database once every
 * node has stopped (docs/RELIABILITY.md, "What runs" and "The invariants").
 */
final class DeployInvariants {

    /** The check's name. */
    static final String NO_PROPERTY_LOST = "no-property-lost";

    private static final Set<String> TRANSITIONS = Set.of("next", "done");

    private record PlanRow(long instanceId, int version, int planned) {
    }

    private record Row(long id, int version, String step, String status, @Nullable String suspension,
            @Nullable String result, @Nullable String lastError) {
    }

    /** A committed transition of the history: the step that ran (its name says the version) and its claim. */
    private record Transition(String step, String event, @Nullable Long leaseToken) {
    }

    private final JdbcClient jdbc;
    /** Strict: a result holding a property its version's type has no place for is a finding, not skipped. */
    private final JsonMapper json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    DeployInvariants(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    /** The check, and its counts for the summary line. */
    Invariants.Check check(Map<String, Long> counts) {
        List<PlanRow> plans = jdbc.sql("SELECT instance_id, version, planned FROM chaos.deploy_plan ORDER BY seq")
                .query((rs, i) -> new PlanRow(rs.getLong("instance_id"), rs.getInt("version"), rs.getInt("planned")))
                .list();
        Map<Long, Row> rows = new HashMap<>();
        jdbc.sql("""
                SELECT id, machine_version, step, status::text AS status, suspension, result::text AS result,
                       last_error
                FROM durable.durable_instance WHERE machine = :machine
                """)
                .param("machine", DeployMachines.NAME)
                .query((rs, i) -> new Row(rs.getLong("id"), rs.getInt("machine_version"), rs.getString("step"),
                        rs.getString("status"), rs.getString("suspension"), rs.getString("result"),
                        rs.getString("last_error")))
                .list().forEach(row -> rows.put(row.id(), row));
        Map<Long, List<Transition>> transitions = new HashMap<>();
        Map<Long, List<String>> suspensions = new HashMap<>();
        jdbc.sql("""
                SELECT h.instance_id, h.step, h.event, h.lease_token, h.error
                FROM durable.durable_history h JOIN durable.durable_instance i ON i.id = h.instance_id
                WHERE i.machine = :machine
                ORDER BY h.id
                """)
                .param("machine", DeployMachines.NAME)
                .query(rs -> {
                    long id = rs.getLong("instance_id");
                    String event = rs.getString("event");
                    if (TRANSITIONS.contains(event)) {
                        transitions.computeIfAbsent(id, k -> new ArrayList<>()).add(new Transition(
                                rs.getString("step"), event, rs.getObject("lease_token", Long.class)));
                    } else if (event.startsWith("suspend")) {
                        suspensions.computeIfAbsent(id, k -> new ArrayList<>()).add(rs.getString("error"));
                    }
                });
        return check(plans, rows, transitions, suspensions, counts);
    }

    private Invariants.Check check(List<PlanRow> plans, Map<Long, Row> rows, Map<Long, List<Transition>> transitions,
            Map<Long, List<String>> suspensions, Map<String, Long> counts) {
        List<String> evidence = new ArrayList<>();
        Map<String, Long> byStatus = new TreeMap<>();
        long upcast = 0;
        long carried = 0;
        long v2Steps = 0;
        for (PlanRow plan : plans) {
            Row row = rows.get(plan.instanceId());
            String name = "instance " + plan.instanceId();
            if (row == null) {
                evidence.add(name + " is missing");
                byStatus.merge("missing", 1L, Long::sum);
                continue;
            }
            byStatus.merge(row.suspension() != null ? "suspended" : row.status(), 1L, Long::sum);
            if (!row.status().equals("done") || row.suspension() != null) {
                evidence.add(name + " (v" + row.version() + " at " + row.step() + ") is " + row.status()
                        + (row.suspension() != null ? ", suspended: " + row.suspension()
                        : row.lastError() != null ? ": " + row.lastError() : ""));
            }
            for (String reason : suspensions.getOrDefault(plan.instanceId(), List.of())) {
                evidence.add(name + " was suspended: " + reason);
            }
            List<Transition> committed = transitions.getOrDefault(plan.instanceId(), List.of());
            long v1 = committed.stream().filter(t -> t.step().equals(DeployMachines.V1_STEP)).count();
            long v2 = committed.stream().filter(t -> t.step().equals(DeployMachines.V2_STEP)).count();
            v2Steps += v2;
            if (v1 > 0 && v2 > 0) {
                upcast++;
                carried += v1;
            }
            List<DeployMachines.Mark> expected = new ArrayList<>();
            boolean upgraded = false;
            for (Transition transition : committed) {
                int version = transition.step().equals(DeployMachines.V1_STEP) ? 1
                        : transition.step().equals(DeployMachines.V2_STEP) ? 2 : 0;
                if (version == 0 || transition.leaseToken() == null) {
                    evidence.add(name + " committed " + transition);
                    continue;
                }
                if (version == 1 && upgraded) {
                    evidence.add(name + ": a version 1 step committed after a version 2 step: " + committed);
                }
                upgraded |= version == 2;
                expected.add(new DeployMachines.Mark(DeployMachines.token(expected.size() + 1,
                        transition.leaseToken()), version));
            }
            if (plan.version() == 2 && v1 > 0) {
                evidence.add(name + " was started on version 2, yet a version 1 step committed: " + committed);
            }
            if (!row.status().equals("done")) {
                continue; // reported above; its result is not written
            }
            if (committed.size() != plan.planned() || !committed.get(committed.size() - 1).event().equals("done")) {
                evidence.add(name + " planned " + plan.planned() + " tokens, committed " + committed);
            }
            List<DeployMachines.Mark> actual = readResult(row, evidence);
            if (actual != null && !actual.equals(expected)) {
                evidence.add(name + " (" + v1 + " tokens by v1, " + v2 + " by v2) ended with "
                        + (row.version() == 2 ? "trail " : "tokens ") + actual + ", expected every committed token "
                        + expected);
            }
        }
        if (rows.size() != plans.size()) {
            evidence.add(rows.size() + " " + DeployMachines.NAME + " rows for " + plans.size() + " planned instances");
        }
        counts.put("deploy_instances", (long) plans.size());
        counts.put("upcast", upcast);
        counts.put("v2_steps", v2Steps);
        return new Invariants.Check(NO_PROPERTY_LOST, evidence.isEmpty(), plans.size() + " " + DeployMachines.NAME
                + " instances by status " + byStatus + "; " + upcast + " started on v1 and finished on v2 (upcast in "
                + "flight), carrying " + carried + " tokens written by v1 into trail; " + v2Steps + " steps run by v2;"
                + " every result holds every token its history committed, in order, none suspended", evidence);
    }

    /**
     * The tokens of a done row's result, each with the version that wrote it: a version 2 result's trail as it is, a
     * version 1 result's tokens as version 1 marks (the instance ended before any node of version 2 ran it).
     */
    private @Nullable List<DeployMachines.Mark> readResult(Row row, List<String> evidence) {
        try {
            if (row.version() == 2) {
                return json.readValue(row.result(), DeployMachines.LedgerV2.class).trail();
            }
            return json.readValue(row.result(), DeployMachines.LedgerV1.class).tokens().stream()
                    .map(token -> new DeployMachines.Mark(token, 1)).toList();
        } catch (RuntimeException e) {
            evidence.add("instance " + row.id() + " (v" + row.version() + "): result unreadable: " + e.getMessage());
            return null;
        }
    }
}
