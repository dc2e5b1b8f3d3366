package dev.durable.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.InstanceCounts;
import dev.durable.InstanceStatus;
import dev.durable.WaitReason;
import dev.durable.runtime.jdbc.History;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The live counts on a table whose ended rows dwarf its unfinished ones (docs/DESIGN.md, "Counting instances"): ROWS
 * rows, one in ten unfinished, spread over 8 machines of 2 versions on 4 queues and over every reason, the others
 * ended (1 % of all failed, 1 % cancelled, the rest done), vacuumed as autovacuum leaves a table. The statement reads
 * the runnable, parked and failed rows from {@code durable_instance_step} alone (an index-only scan), the executing
 * and suspended ones through their own indexes, and never the table whole; and what it counts is what the rows say,
 * reason by reason.
 *
 * <p>The default suite uses 100,000 rows; {@code docs/PERFORMANCE.md} records the plan on a million, printed by
 * {@code ./mvnw -pl durable-core test -Dtest=LiveCountPlanTest -Ddurable.plan.rows=1000000 -Ddurable.plan.print=true}.
 */
class LiveCountPlanTest extends LiveRowsTable {


    @Test
    void theLiveCountsReadTheIndexOfInFlightRowsAloneAndNeverTheTable() {
        String sql = PLANNING.qualify(QueryRepository.COUNT_LIVE);
        String plan = String.join("\n", TestDatabase.jdbc().queryForList("EXPLAIN " + sql, String.class));
        if (PRINT) {
            System.out.println("---- " + sql.lines().findFirst().orElse("").strip() + " on " + ROWS + " rows");
            TestDatabase.jdbc().queryForList("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, String.class)
                    .forEach(System.out::println);
        }

        // An index-only scan on the local PostgreSQL 15; the embedded 14 and 18, with their default cost settings,
        // plan the same index as a bitmap that visits the unfinished rows' pages (docs/DESIGN.md, "Counting
        // instances"): either way the index bounds what is read.
        assertThat(plan).containsPattern("Index Only Scan using durable_instance_step on durable_instance"
                + "|Bitmap Index Scan on durable_instance_step");
        assertThat(plan).contains("durable_instance_lease").contains("durable_instance_suspended")
                .doesNotContain("Seq Scan");
    }

    /**
     * A machine's unfinished and failed instances by step and status (the dashboard's diagram) are what its rows say,
     * a suspended one as suspended, from the same indexes.
     */
    @Test
    void aMachinesCountsByStepAreWhatItsRowsSay() {
        Map<String, Map<InstanceStatus, Long>> counts = new DiagramRepository(PLANNING).countByStep("m0");

        Map<String, Long> counted = new TreeMap<>();
        counts.forEach((step, byStatus) -> byStatus.forEach((status, n) -> counted.put(step + " " + status.label(),
                n)));
        Map<String, Long> rows = new TreeMap<>();
        TestDatabase.jdbc().query("""
                SELECT step || ' ' || CASE WHEN status = 'runnable' AND suspension IS NOT NULL THEN 'suspended'
                                           ELSE status::text END AS key,
                       count(*) AS n
                FROM durable_it.durable_instance
                WHERE machine = 'm0' AND status NOT IN ('done', 'cancelled')
                GROUP BY 1
                """, rs -> {
                    rows.put(rs.getString("key"), rs.getLong("n"));
                });

        assertThat(counted).isEqualTo(rows).containsKeys("s0 runnable", "s0 executing", "s0 awaiting_signal",
                "s0 failed", "s0 suspended");
        assertThat(new DiagramRepository(PLANNING).countByStep("nothing")).isEmpty();
    }

    @Test
    void theLiveCountsAreWhatTheRowsSayReasonByReason() {
        InstanceCounts counts = new QueryRepository(PLANNING, History.off()).countLive();

        Map<String, Long> counted = new TreeMap<>();
        counts.groups().forEach(group -> group.counts().forEach((reason, n) -> {
            if (n != 0) {
                counted.put(group.queue() + " " + group.machine() + " v" + group.version() + " " + reason, n);
            }
        }));
        Map<String, Long> rows = new TreeMap<>();
        TestDatabase.jdbc().query("""
                SELECT queue || ' ' || machine || ' v' || machine_version || ' ' ||
                       CASE WHEN status = 'runnable' AND suspension IS NOT NULL THEN 'suspended'
                            WHEN status = 'runnable' AND eligible_at <= now() THEN 'ready'
                            WHEN status = 'runnable' THEN 'timer'
                            WHEN status = 'executing' THEN 'executing'
                            WHEN status = 'awaiting_signal' AND awaits_children IS NOT NULL THEN 'children'
                            WHEN status = 'awaiting_signal' AND deadline IS NOT NULL THEN 'deadline'
                            WHEN status = 'awaiting_signal' THEN 'signal'
                            WHEN status = 'failed' THEN 'failed' END AS key,
                       count(*) AS n
                FROM durable_it.durable_instance
                WHERE status NOT IN ('done', 'cancelled')
                GROUP BY 1
                """, rs -> {
                    rows.put(rs.getString("key"), rs.getLong("n"));
                });

        assertThat(counted).isEqualTo(rows);
        // Every reason is there on every queue (the failed rows only on the even machines' queues), and the groups
        // are the machines' versions.
        for (String queue : List.of("q0", "q1", "q2", "q3")) {
            for (WaitReason reason : WaitReason.values()) {
                if (reason != WaitReason.FAILED || queue.matches("q[02]")) {
                    assertThat(counts.queue(queue).count(reason)).as(queue + " " + reason).isPositive();
                }
            }
        }
        assertThat(counts.groups()).hasSize(16);
        assertThat(counts.total()).isEqualTo(ROWS / 10 + ROWS / 100);
        assertThat(counts.expiredLeases()).isPositive().isEqualTo(TestDatabase.jdbc().queryForObject(
                "SELECT count(*) FROM durable_it.durable_instance WHERE status = 'executing'"
                        + " AND lease_expires_at < now()", Long.class));
        // The ready rows fell due up to 51 seconds before the table was filled.
        assertThat(counts.oldestReadyAge()).isBetween(Duration.ofSeconds(51), Duration.ofMinutes(10));
    }
}
