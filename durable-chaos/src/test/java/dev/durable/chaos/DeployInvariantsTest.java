package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rolling deploy's check {@code no-property-lost} catches what it claims to: instances that carried every token
 * across the upcast (or finished on version 1) pass, and each planted violation (a version 2 result that lost what
 * version 1 wrote into its old property, an upcast that relabelled version 1's tokens, an instance left suspended, a
 * version 1 step committed after the upcast, a leftover old property) fails it. Synthetic rows in a real PostgreSQL,
 * the harness's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeployInvariantsTest {

    private final JsonMapper json = JsonMapper.builder().build();
    private InvariantsDatabase database;
    private HikariDataSource data;
    private JdbcTemplate jdbc;

    @BeforeAll
    void startPostgres() throws Exception {
        database = InvariantsDatabase.start("deploy-invariants-test", "CREATE SCHEMA IF NOT EXISTS chaos", DeployWorkload.DDL);
        data = database.dataSource();
        jdbc = database.jdbc();
    }

    @AfterAll
    void stopPostgres() throws Exception {
        database.close();
    }

    @BeforeEach
    void clean() {
        jdbc.execute("TRUNCATE durable.durable_signal, durable.durable_instance, durable.durable_history,"
                + " chaos.deploy_plan RESTART IDENTITY");
    }

    @Test
    void tokensCarriedAcrossTheUpcastAndAnInstanceThatEndedOnVersion1Pass() {
        long upcast = instance(1, 3, 2, "done", null);
        history(upcast, "collect", "next", 11);
        history(upcast, "collect", "next", 12);
        history(upcast, "gather", "done", 13);
        result(upcast, v2(mark("1@11", 1), mark("2@12", 1), mark("3@13", 2)));
        long onV1 = instance(1, 2, 1, "done", null);
        history(onV1, "collect", "next", 21);
        history(onV1, "collect", "done", 22);
        result(onV1, v1("1@21", "2@22"));
        long onV2 = instance(2, 1, 2, "done", null);
        history(onV2, "gather", "done", 31);
        result(onV2, v2(mark("1@31", 2)));

        Map<String, Long> counts = new HashMap<>();
        Invariants.Check check = new DeployInvariants(data).check(counts);

        assertThat(check.passed()).as(check.describe()).isTrue();
        assertThat(check.name()).isEqualTo("no-property-lost");
        assertThat(counts).containsEntry("deploy_instances", 3L).containsEntry("upcast", 1L)
                .containsEntry("v2_steps", 2L);
    }

    @Test
    void aResultThatLostWhatVersion1WroteIntoItsOldPropertyFails() {
        long id = instance(1, 3, 2, "done", null);
        history(id, "collect", "next", 11);
        history(id, "collect", "next", 12);
        history(id, "gather", "done", 13);
        // Version 2 ran on a state read without its upcaster: $.tokens dropped, trail empty, one token of its own.
        result(id, v2(mark("1@13", 2)));

        Invariants.Check check = new DeployInvariants(data).check(new HashMap<>());

        assertThat(check.passed()).isFalse();
        assertThat(check.evidence()).singleElement().asString().contains("instance " + id)
                .contains("expected every committed token").contains("1@11").contains("2@12");
    }

    @Test
    void anUpcastThatRelabelledVersion1sTokensFails() {
        long id = instance(1, 2, 2, "done", null);
        history(id, "collect", "next", 11);
        history(id, "gather", "done", 12);
        result(id, v2(mark("1@11", 2), mark("2@12", 2)));

        assertThat(new DeployInvariants(data).check(new HashMap<>()).passed()).isFalse();
    }

    @Test
    void anInstanceLeftSuspendedForTheDeployFails() {
        long id = instance(1, 3, 1, "runnable", "The stored state of chaos-deploy v1 would lose [$.tokens]");
        history(id, "collect", "next", 11);
        history(id, "gather", "suspend", 12);

        Invariants.Check check = new DeployInvariants(data).check(new HashMap<>());

        assertThat(check.passed()).isFalse();
        assertThat(check.summary()).contains("suspended=1");
        assertThat(check.evidence()).anySatisfy(line -> assertThat(line).contains("suspended"));
    }

    @Test
    void aVersion1StepCommittedAfterTheUpcastFails() {
        long id = instance(1, 3, 2, "done", null);
        history(id, "collect", "next", 11);
        history(id, "gather", "next", 12);
        history(id, "collect", "done", 13);
        result(id, v2(mark("1@11", 1), mark("2@12", 2), mark("3@13", 1)));

        Invariants.Check check = new DeployInvariants(data).check(new HashMap<>());

        assertThat(check.passed()).isFalse();
        assertThat(check.evidence()).anySatisfy(line -> assertThat(line).contains("after a version 2 step"));
    }

    @Test
    void aResultStillHoldingTheOldPropertyFails() {
        long id = instance(1, 2, 2, "done", null);
        history(id, "collect", "next", 11);
        history(id, "gather", "done", 12);
        result(id, "{\"planned\":2,\"pauseMs\":1000,\"tokens\":[\"1@11\"],"
                + "\"trail\":[{\"token\":\"1@11\",\"version\":1},{\"token\":\"2@12\",\"version\":2}]}");

        Invariants.Check check = new DeployInvariants(data).check(new HashMap<>());

        assertThat(check.passed()).isFalse();
        assertThat(check.evidence()).singleElement().asString().contains("unreadable").contains("tokens");
    }

    /** A planned instance started on {@code startedOn} with {@code planned} tokens, now at {@code version}. */
    private long instance(int startedOn, int planned, int version, String status, @Nullable String suspension) {
        long id = jdbc.queryForObject("""
                INSERT INTO durable.durable_instance (machine, machine_version, step, status, queue, suspension)
                VALUES (?, ?, ?, ?::durable.durable_status, 'chaos', ?)
                RETURNING id
                """, Long.class, DeployMachines.NAME, version, version == 1 ? "collect" : "gather", status, suspension);
        jdbc.update("INSERT INTO chaos.deploy_plan (instance_id, seq, version, planned, pause_ms) VALUES (?, ?, ?, ?,"
                + " 1000)", id, (int) id, startedOn, planned);
        return id;
    }

    private void history(long id, String step, String event, long leaseToken) {
        jdbc.update("INSERT INTO durable.durable_history (instance_id, step, event, status, attempt, lease_token)"
                + " VALUES (?, ?, ?, 'runnable', 0, ?)", id, step, event, leaseToken);
    }

    private void result(long id, String result) {
        jdbc.update("UPDATE durable.durable_instance SET result = ?::jsonb WHERE id = ?", result, id);
    }

    private String v1(String... tokens) {
        return json.writeValueAsString(new DeployMachines.LedgerV1(tokens.length, 1000, List.of(tokens)));
    }

    private String v2(DeployMachines.Mark... trail) {
        return json.writeValueAsString(new DeployMachines.LedgerV2(trail.length, 1000, List.of(trail)));
    }

    private static DeployMachines.Mark mark(String token, int version) {
        return new DeployMachines.Mark(token, version);
    }
}
