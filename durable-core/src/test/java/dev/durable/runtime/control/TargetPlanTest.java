package dev.durable.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.InstanceStatus;
import dev.durable.Target;
import dev.durable.TargetCheck;
import dev.durable.jdbc.DurableSchema;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.testing.TestDatabase;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The check of targets on the table of {@code LiveCountPlanTest} (docs/DESIGN.md, "Targets"): ROWS rows, one in ten
 * unfinished, the ready and parked ones having fallen due or parked 1 to 51 seconds before the table was filled. The
 * statement, run periodically, counts each target from an index alone (a queue's through the pick index, a step's
 * through {@code durable_instance_step}) and never reads the table whole; what it counts is what the rows say; and no
 * statement runs without a target.
 *
 * <p>{@code docs/PERFORMANCE.md} records the plan on a million rows, printed by
 * {@code ./mvnw -pl durable-core test -Dtest=TargetPlanTest -Ddurable.plan.rows=1000000 -Ddurable.plan.print=true}.
 */
class TargetPlanTest extends LiveRowsTable {

    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final JsonCodec CODEC = new JacksonJsonCodec();

    @Test
    void everyTargetIsCountedFromItsIndexAndTheTableIsNeverReadWhole() {
        String sql = PLANNING.qualify(SearchRepository.CHECK_TARGETS);
        MapSqlParameterSource targets = new MapSqlParameterSource()
                .addValue("queue", new SqlArrayValue("text", "q0", "q1", "q2", "q3"))
                .addValue("queueLimitMs", new SqlArrayValue("bigint", 30_000L, 30_000L, 30_000L, 30_000L))
                .addValue("machine", new SqlArrayValue("text", "m1", "m1", "m6"))
                .addValue("step", new SqlArrayValue("text", "s0", "s1", "s2"))
                .addValue("stepLimitMs", new SqlArrayValue("bigint", 30_000L, 30_000L, 86_400_000L));
        NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(TestDatabase.dataSource());
        String plan = String.join("\n", jdbc.queryForList("EXPLAIN " + sql, targets, String.class));
        if (PRINT) {
            System.out.println("---- " + sql.lines().findFirst().orElse("").strip() + " on " + ROWS + " rows");
            jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, targets, String.class)
                    .forEach(System.out::println);
        }

        // Index-only scans on the local PostgreSQL 15; a bitmap over the same index elsewhere, as for the live counts.
        assertThat(plan).containsPattern("Index Only Scan using durable_instance_pick on durable_instance i"
                + "|Bitmap Index Scan on durable_instance_pick");
        assertThat(plan).containsPattern("Index Only Scan using durable_instance_step on durable_instance i"
                + "|Bitmap Index Scan on durable_instance_step");
        assertThat(plan).doesNotContain("Seq Scan");
    }

    @Test
    void whatATargetCountsIsWhatTheRowsSay() {
        SearchRepository search = new SearchRepository(TestDatabase.dataSource(), PLANNING);
        List<Target> targets = List.of(Target.oldestRunnableAge("q1", LIMIT), Target.timeAtStep("m1", "s2", LIMIT),
                Target.timeAtStep("m1", "s1", Duration.ofDays(1)));

        List<TargetCheck> checks = search.check(targets);

        assertThat(checks).extracting(TargetCheck::target).isEqualTo(targets);
        // The rows' ages are 1, 11, 21 ... 51 seconds at the fill, plus the time since: the count is taken between
        // the counts a second either side of the limit, which the ages' gaps make equal but for an unlucky instant.
        assertThat(checks.get(0).breaching()).isPositive()
                .isBetween(rows("status = 'runnable' AND queue = 'q1'", 31), rows("status = 'runnable'"
                        + " AND queue = 'q1'", 29));
        assertThat(checks.get(1).breaching()).isPositive()
                .isBetween(rows("status IN ('runnable', 'awaiting_signal') AND machine = 'm1' AND step = 's2'", 31),
                        rows("status IN ('runnable', 'awaiting_signal') AND machine = 'm1' AND step = 's2'", 29));
        assertThat(checks.get(0).longestWait()).isGreaterThan(Duration.ofSeconds(51));
        assertThat(checks.get(2).breached()).isFalse();
        assertThat(checks.get(2).longestWait()).isNull();
        assertThat(checks.get(2).describe()).isEqualTo("m1 at s1: time at step 24h: none past it");
        // Its breaches are a search's page like any other: the same instances, due or parked, none suspended.
        long listed = TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance"
                + " WHERE machine = 'm1' AND step = 's2' AND status IN ('runnable', 'awaiting_signal')"
                + " AND eligible_at <= now() - interval '30 seconds'", Long.class);
        assertThat(searchAll(search, targets.get(1))).isEqualTo(listed);
        assertThat(search.check(List.of())).isEmpty();
    }

    /** With no target the check runs nothing: not even a connection is asked for. */
    @Test
    void withoutATargetNoStatementRuns() {
        DataSource refusing = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, arguments) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == arguments[0]
                                : method.getName().equals("hashCode") ? 0 : "refusing";
                    }
                    throw new AssertionError("a check without targets used the DataSource: " + method);
                });
        SearchRepository search = new SearchRepository(refusing, new StatementPlanning(refusing,
                DurableSchema.named("public")));

        assertThat(search.check(List.of())).isEmpty();
    }

    /** Every instance a target's query lists, page after page. */
    private static long searchAll(SearchRepository search, Target target) {
        long found = 0;
        long afterId = 0;
        for (var page = search.search(target.breaching().limit(1000), CODEC); !page.isEmpty();
                page = search.search(target.breaching().limit(1000).afterId(afterId), CODEC)) {
            assertThat(page).allSatisfy(instance -> assertThat(instance.status())
                    .isIn(InstanceStatus.RUNNABLE, InstanceStatus.AWAITING_SIGNAL));
            found += page.size();
            afterId = page.get(page.size() - 1).id();
        }
        return found;
    }

    private static long rows(String where, int olderThanSeconds) {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance WHERE " + where
                + " AND eligible_at <= now() - ? * interval '1 second'", Long.class, olderThanSeconds);
    }
}
