package dev.durable.runtime.control;

import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The table the plan tests of the live counts and of the targets read (docs/DESIGN.md, "Counting instances" and
 * "Targets"): {@code durable.plan.rows} rows (100,000 unless set) whose ended ones dwarf the unfinished, spread over 8
 * machines ({@code m0}..{@code m7}) of 2 versions on 4 queues ({@code q0}..{@code q3}), 3 steps ({@code s0}..{@code s2})
 * and every reason, vacuumed as autovacuum leaves a table; filled before a test class and emptied after it.
 */
abstract class LiveRowsTable {

    static final StatementPlanning PLANNING = new StatementPlanning(TestDatabase.dataSource(),
            DurableSchema.named(TestDatabase.SCHEMA));
    static final int ROWS = Integer.getInteger("durable.plan.rows", 100_000);
    /** Whether the plans are printed, with {@code EXPLAIN (ANALYZE, BUFFERS)}, for docs/PERFORMANCE.md. */
    static final boolean PRINT = Boolean.getBoolean("durable.plan.print");

    @BeforeAll
    static void fillTheTable() {
        fill(ROWS);
    }

    @AfterAll
    static void emptyTheTable() {
        TestDatabase.clean();
    }

    /**
     * Every tenth row unfinished: its machine and version by its place among them (16 groups, each machine on one of
     * the queues), its reason by its place among each sixteen, out of 100: 22 ready, 22 timers (due in an hour
     * or more, so none falls due while the test runs), 1 executing, 22 parked on a signal, 18 on a signal with a
     * deadline, 14 on their children (every other one of those with a deadline too), 1 suspended. States of about 100
     * bytes, as an order's.
     */
    private static void fill(int rows) {
        TestDatabase.clean();
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_instance (machine, machine_version, step, state, queue, status,
                    eligible_at, lease_owner, lease_token, lease_expires_at, updated_at, awaits, deadline,
                    awaits_children, children_started, suspension, last_error)
                SELECT 'm' || ((g / 10) % 8), 1 + (g / 80) % 2, 's' || (g % 3),
                       jsonb_build_object('order', g, 'lines',
                                          jsonb_build_array(jsonb_build_object('sku', 'A-' || g, 'qty', 1)),
                                          'note', 'leave at the door'),
                       'q' || ((g / 10) % 4),
                       (CASE WHEN g % 10 <> 0 THEN CASE g % 100 WHEN 1 THEN 'failed' WHEN 3 THEN 'cancelled'
                                                                ELSE 'done' END
                             WHEN c < 44 OR c = 99 THEN 'runnable'
                             WHEN c = 44 THEN 'executing'
                             ELSE 'awaiting_signal' END)::durable_it.durable_status,
                       CASE WHEN g % 10 = 0 AND c BETWEEN 22 AND 43 THEN now() + (g % 60 + 60) * interval '1 minute'
                            WHEN g % 10 = 0 AND c = 99 THEN 'infinity'
                            ELSE now() - (g % 60 + 1) * interval '1 second' END,
                       CASE WHEN g % 10 = 0 AND c = 44 THEN 'node:1' END,
                       CASE WHEN g % 10 = 0 AND c = 44 THEN g END,
                       CASE WHEN g % 10 = 0 AND c = 44 THEN now() + CASE WHEN g % 20 = 0 THEN -1 ELSE 1 END
                                                                   * interval '1 minute' END,
                       now() - (g % 10000) * interval '1 minute',
                       CASE WHEN g % 10 = 0 AND c BETWEEN 45 AND 84 THEN 'payment' END,
                       CASE WHEN g % 10 = 0 AND c BETWEEN 67 AND 84 THEN now() + (g % 21 - 10) * interval '1 minute'
                            WHEN g % 10 = 0 AND c BETWEEN 85 AND 98 AND g % 20 = 0 THEN now() + interval '1 hour' END,
                       CASE WHEN g % 10 = 0 AND c BETWEEN 85 AND 98 THEN 3 END,
                       CASE WHEN g % 10 = 0 AND c BETWEEN 85 AND 98 THEN 3 ELSE 0 END,
                       CASE WHEN g % 10 = 0 AND c = 99 THEN 'would lose [$.reservation]' END,
                       CASE WHEN g % 100 = 1 THEN 'carrier down' END
                FROM generate_series(1, ?) g, LATERAL (SELECT (g / 160) % 100 AS c) place
                """, rows);
        // What autovacuum does to a table that took inserts: statistics, and the visibility map an index-only scan
        // relies on.
        TestDatabase.jdbc().execute("VACUUM ANALYZE durable_it.durable_instance");
    }

}
