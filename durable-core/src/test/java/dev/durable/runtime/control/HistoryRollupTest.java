package dev.durable.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.TransitionCount;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The history counted by machine and minute (docs/DESIGN.md, "Dashboard"): a machine's traffic over a window, read from
 * the counted minutes and the history's other entries, is what the history itself holds, for every window, counted in
 * turns of a bounded number of entries; the counts keep the entries of instances deleted since; a turn while another
 * node counts skips; the counts older than the longest retention are deleted; an entry committed after its minute was
 * counted is left out, one of the minutes not closed yet is not.
 */
class HistoryRollupTest {

    private static final String SCHEMA = TestDatabase.SCHEMA;

    private final DiagramRepository repository = new DiagramRepository(new StatementPlanning(
            TestDatabase.dataSource(), DurableSchema.named(SCHEMA)));

    /**
     * 300 instances, of machines a (two thirds) and b; an entry every 7 seconds over the last three days, of four
     * steps, each event in turn: next, retry, suspend (counted as suspended), done.
     */
    @BeforeEach
    void fill() {
        TestDatabase.clean();
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_instance (machine, machine_version, step, state, queue)
                SELECT CASE WHEN g % 3 = 0 THEN 'b' ELSE 'a' END, 1, 's', '{}', 'default'
                FROM generate_series(1, 300) g
                """);
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_history (instance_id, step, event, next_step, status, attempt, node, at)
                SELECT g % 300 + 1, 's' || (g % 4), v.event, v.next_step, v.status::durable_it.durable_status, 0,
                       'node:1', now() - g * interval '7 seconds'
                FROM generate_series(0, 3 * 24 * 3600 / 7) g
                JOIN (VALUES (0, 'next', 't', 'runnable'), (1, 'retry', NULL, 'runnable'),
                             (2, 'suspend', NULL, 'runnable'), (3, 'done', NULL, 'done'))
                    AS v (k, event, next_step, status) ON v.k = g / 4 % 4
                """);
    }

    @Test
    void theCountedMinutesAndTheWindowsOtherEntriesAddUpToTheHistory() {
        List<Instant> windows = List.of(Instant.now().minus(Duration.ofMinutes(3)),
                Instant.now().minus(Duration.ofSeconds(3690)), Instant.now().truncatedTo(ChronoUnit.MINUTES)
                        .minus(Duration.ofHours(5)), Instant.now().minus(Duration.ofDays(1)),
                Instant.now().minus(Duration.ofDays(4)));
        for (Instant since : windows) {
            assertThat(counts("a", since)).as("nothing counted yet, since %s", since).isEqualTo(history("a", since));
        }

        int turns = 1;
        while (repository.rollUp(1_000, null)) {
            turns++;
        }

        // 37,000 entries, at most a thousand a turn (a turn ends on a minute, so it may take a few more).
        assertThat(turns).isBetween(30, 80);
        assertThat(TestDatabase.jdbc().queryForObject("""
                SELECT rolled_until BETWEEN date_trunc('minute', now() - interval '6 minutes', 'UTC')
                                        AND date_trunc('minute', now() - interval '5 minutes', 'UTC')
                FROM durable_it.durable_history_rollup
                """, Boolean.class)).as("counted up to the last closed minute").isTrue();
        assertThat(TestDatabase.jdbc().queryForObject("""
                SELECT (SELECT sum(n) FROM durable_it.durable_history_minute)
                     = (SELECT count(*) FROM durable_it.durable_history
                        WHERE at < (SELECT rolled_until FROM durable_it.durable_history_rollup))
                """, Boolean.class)).as("every entry before the mark counted once").isTrue();
        assertThat(repository.rollUp(1_000, null)).as("caught up").isFalse();
        for (String machine : List.of("a", "b", "none")) {
            for (Instant since : windows) {
                assertThat(counts(machine, since)).as("%s since %s", machine, since)
                        .isEqualTo(history(machine, since));
            }
        }
        assertThat(counts("a", windows.get(3))).anyMatch(count -> count.contains(" suspend null suspended "))
                .anyMatch(count -> count.contains(" next t runnable "));

        // Retention deletes an instance with its history: the counted minutes keep its entries, the others do not.
        Instant dayAgo = Instant.now().minus(Duration.ofDays(1));
        int counted = TestDatabase.jdbc().queryForObject("""
                SELECT count(*)::int FROM durable_it.durable_history
                WHERE instance_id = 1 AND at >= ?
                  AND at < (SELECT rolled_until FROM durable_it.durable_history_rollup)
                """, Integer.class, Timestamp.from(dayAgo.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1))));
        TestDatabase.jdbc().update("DELETE FROM durable_it.durable_history WHERE instance_id = 1");
        TestDatabase.jdbc().update("DELETE FROM durable_it.durable_instance WHERE id = 1");
        assertThat(counted).isPositive();
        assertThat(total(counts("a", dayAgo))).isEqualTo(total(history("a", dayAgo)) + counted);
        assertThat(counts("a", windows.get(0))).isEqualTo(history("a", windows.get(0)));
    }

    @Test
    void aTurnWhileAnotherNodeCountsSkipsIt() throws Exception {
        TestDatabase.jdbc().update("INSERT INTO " + SCHEMA + ".durable_history_rollup (rolled_until)"
                + " VALUES ('-infinity')");
        try (Connection other = TestDatabase.dataSource().getConnection();
             Statement statement = other.createStatement()) {
            other.setAutoCommit(false);
            statement.execute("SELECT 1 FROM " + SCHEMA + ".durable_history_rollup FOR UPDATE");

            assertThat(repository.rollUp(1_000, null)).isFalse();
            assertThat(minutes()).isZero();
            other.rollback();
        }
        assertThat(new HistoryRollup(repository, null).catchUp()).as("37,000 entries in one turn").isEqualTo(1);
        assertThat(minutes()).isPositive();
    }

    @Test
    void theCountsOlderThanTheLongestRetentionAreDeleted() {
        assertThat(new Retention(null, null, Duration.ofDays(1), Duration.ofDays(2), Duration.ofHours(3), 10,
                Duration.ofSeconds(1)).longestKept()).isEqualTo(Duration.ofDays(2));
        assertThat(new Retention(null, null, Duration.ofDays(1), null, Duration.ofHours(3), 10,
                Duration.ofSeconds(1)).longestKept()).as("failed ones kept for ever, with their history").isNull();
        new HistoryRollup(repository, null).catchUp();
        long all = minutes();

        // At most as many counts a turn as entries a turn reads: many turns of a thousand, then one with fewer.
        int turns = 1;
        while (repository.rollUp(1_000, Duration.ofDays(1))) {
            turns++;
        }
        assertThat(turns).isEqualTo((int) ((all - minutes()) / 1_000 + 1)).isGreaterThan(5);

        assertThat(TestDatabase.jdbc().queryForObject("""
                SELECT min(minute) >= now() - interval '1 day' FROM durable_it.durable_history_minute
                """, Boolean.class)).isTrue();
        assertThat(minutes()).isBetween(1L, all / 2);
    }

    @Test
    void anEntryCommittedAfterItsMinuteWasCountedIsLeftOutAndOneOfAnOpenMinuteIsNot() {
        new HistoryRollup(repository, null).catchUp();
        Instant hourAgo = Instant.now().minus(Duration.ofHours(1));
        List<String> before = counts("b", hourAgo);

        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_history (instance_id, step, event, status, attempt, node, at)
                VALUES (3, 'late', 'next', 'runnable', 0, 'node:1', now() - interval '20 minutes'),
                       (3, 'open', 'next', 'runnable', 0, 'node:1', now() - interval '2 minutes')
                """);

        assertThat(counts("b", hourAgo)).containsAll(before).contains("open next null runnable 1")
                .doesNotContain("late next null runnable 1").hasSize(before.size() + 1);
        assertThat(history("b", hourAgo)).contains("late next null runnable 1");
    }

    /** What the diagram reads: the counted minutes and the window's other entries. */
    private List<String> counts(String machine, Instant since) {
        return repository.transitionCounts(machine, since).stream().map(HistoryRollupTest::describe).sorted().toList();
    }

    private static String describe(TransitionCount count) {
        return count.step() + " " + count.event().label() + " " + count.nextStep() + " " + count.status().label()
                + " " + count.count();
    }

    /** The window's entries as the history holds them, each joined to its instance (schema version 17's read). */
    private static List<String> history(String machine, Instant since) {
        return TestDatabase.jdbc().queryForList("""
                SELECT h.step || ' ' || h.event || ' ' || coalesce(h.next_step, 'null') || ' '
                       || CASE WHEN h.event = 'suspend' THEN 'suspended' ELSE h.status::text END || ' ' || count(*)
                FROM durable_it.durable_history h JOIN durable_it.durable_instance i ON i.id = h.instance_id
                WHERE i.machine = ? AND h.at >= ?
                GROUP BY h.step, h.event, h.next_step, h.status
                """, String.class, machine, Timestamp.from(since)).stream().sorted().toList();
    }

    private static long total(List<String> counts) {
        return counts.stream().mapToLong(count -> Long.parseLong(count.substring(count.lastIndexOf(' ') + 1))).sum();
    }

    private static long minutes() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_history_minute",
                Long.class);
    }
}
