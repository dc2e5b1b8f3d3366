package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The family and cancel checks catch what they claim to: a consistent family passes, and each planted violation (a
 * transition committed after a cancel, a join that saw a child unfinished or missed one, a join committed twice, an
 * acknowledged cancel that did not hold, a member left running) fails the check that is about it. Synthetic rows in a
 * real PostgreSQL, the harness's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FamilyInvariantsTest {

    private final JsonMapper json = JsonMapper.builder().build();
    private InvariantsDatabase database;
    private HikariDataSource data;
    private JdbcTemplate jdbc;

    @BeforeAll
    void startPostgres() throws Exception {
        database = InvariantsDatabase.start("family-invariants-test", "CREATE SCHEMA IF NOT EXISTS chaos", FamilyWorkload.DDL);
        data = database.dataSource();
        jdbc = database.jdbc();
    }

    @AfterAll
    void stopPostgres() throws Exception {
        database.close();
    }

    @BeforeEach
    void clean() {
        jdbc.execute("TRUNCATE durable.durable_signal, durable.durable_instance, durable.durable_history, chaos.cancel"
                + " RESTART IDENTITY");
    }

    @Test
    void aFamilyWhoseJoinSawEveryChildEndedAndACancelThatHeldPass() throws Exception {
        long parent = joinedFamily("done", "cancelled");
        long cancelled = instance(FamilyMachines.PARENT, "cancelled", null, 0, 0, null);
        history(cancelled, "cancel");
        cancel(cancelled, "CANCELLED");

        assertThat(checks()).allSatisfy((name, passed) -> assertThat(passed).as(name).isTrue());
        assertThat(parent).isPositive();
    }

    @Test
    void aTransitionCommittedAfterACancelFails() throws Exception {
        joinedFamily("done", "done");
        long member = instance(FamilyMachines.MEMBER, "cancelled", null, 0, 0, null);
        history(member, "next");
        history(member, "cancel");
        history(member, "done");

        assertThat(checks()).containsEntry("cancel-is-last", false).containsEntry("join-saw-all-children-ended", true);
    }

    @Test
    void anAcknowledgedCancelThatDidNotHoldFails() throws Exception {
        long parent = instance(FamilyMachines.PARENT, "done", null, 0, 0, json.writeValueAsString(
                new FamilyMachines.Joined(0, 0, List.of())));
        history(parent, "await");
        history(parent, "done");
        cancel(parent, "CANCELLED");

        assertThat(checks()).containsEntry("cancel-is-last", false);
    }

    @Test
    void aJoinThatSawAChildUnfinishedOrMissedOneFails() throws Exception {
        long parent = instance(FamilyMachines.PARENT, "done", null, 2, 2, null);
        long first = instance(FamilyMachines.MEMBER, "done", parent, 0, 0, null);
        instance(FamilyMachines.MEMBER, "done", parent, 0, 0, null);
        result(parent, new FamilyMachines.Joined(2, 2, List.of(new FamilyMachines.Seen(first, "runnable"))));
        history(parent, "await");
        history(parent, "done");

        assertThat(checks()).containsEntry("join-saw-all-children-ended", false);
    }

    @Test
    void aJoinCommittedTwiceFails() throws Exception {
        long parent = joinedFamily("done", "done");
        history(parent, "done");

        assertThat(checks()).containsEntry("join-saw-all-children-ended", false);
    }

    @Test
    void aJoinRetriedAfterADatabaseErrorPasses() throws Exception {
        parentRetriedBeforeItsDone("org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC"
                + " Connection");

        assertThat(checks()).containsEntry("join-saw-all-children-ended", true);
    }

    @Test
    void aJoinRetriedForAnotherReasonFails() throws Exception {
        parentRetriedBeforeItsDone("java.lang.IllegalStateException: a family instance always has a state");

        assertThat(checks()).containsEntry("join-saw-all-children-ended", false);
    }

    /** A joined family whose parent committed a retry with {@code error} between its park and its done. */
    private long parentRetriedBeforeItsDone(String error) throws Exception {
        long parent = joinedFamily("done");
        jdbc.update("DELETE FROM durable.durable_history WHERE instance_id = ?", parent);
        history(parent, "await");
        jdbc.update("INSERT INTO durable.durable_history (instance_id, step, event, status, attempt, error) VALUES"
                + " (?, 's', 'retry', 'runnable', 0, ?)", parent, error);
        history(parent, "done");
        return parent;
    }

    @Test
    void aMemberLeftRunningFails() throws Exception {
        long parent = instance(FamilyMachines.PARENT, "cancelled", null, 1, 0, null);
        instance(FamilyMachines.MEMBER, "awaiting_signal", parent, 0, 0, null);

        assertThat(checks()).containsEntry("families-ended", false);
    }

    /** A done parent with a child in each of {@code statuses}, whose join saw them all ended, once. */
    private long joinedFamily(String... statuses) throws Exception {
        long parent = instance(FamilyMachines.PARENT, "done", null, statuses.length, statuses.length, null);
        List<FamilyMachines.Seen> seen = new ArrayList<>();
        for (String status : statuses) {
            seen.add(new FamilyMachines.Seen(instance(FamilyMachines.MEMBER, status, parent, 0, 0, null), status));
        }
        result(parent, new FamilyMachines.Joined(statuses.length, statuses.length, seen));
        history(parent, "await");
        history(parent, "done");
        return parent;
    }

    private long instance(String machine, String status, Long parent, int started, int ended, String result) {
        return jdbc.queryForObject("""
                INSERT INTO durable.durable_instance (machine, machine_version, step, status, queue, parent_id,
                                                      cancel_with_parent, children_started, children_ended, result)
                VALUES (?, 1, 's', ?::durable.durable_status, 'chaos', ?, ?, ?, ?, ?::jsonb)
                RETURNING id
                """, Long.class, machine, status, parent, parent == null ? null : true, started, ended, result);
    }

    private void result(long id, FamilyMachines.Joined joined) throws Exception {
        jdbc.update("UPDATE durable.durable_instance SET result = ?::jsonb WHERE id = ?",
                json.writeValueAsString(joined), id);
    }

    private void history(long id, String event) {
        jdbc.update("INSERT INTO durable.durable_history (instance_id, step, event, status, attempt) VALUES"
                + " (?, 's', ?, 'runnable', 0)", id, event);
    }

    private void cancel(long id, String result) {
        jdbc.update("INSERT INTO chaos.cancel (instance_id, role, result, attempts) VALUES (?, 'parent', ?, 1)", id,
                result);
    }

    /** Each check's name and whether it passed. */
    private Map<String, Boolean> checks() {
        Map<String, Boolean> passed = new HashMap<>();
        new FamilyInvariants(data).check(new HashMap<>()).forEach(check -> passed.put(check.name(), check.passed()));
        return passed;
    }
}
