package dev.durable.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InFlightReport;
import dev.durable.InstanceQuery;
import dev.durable.Outcome;
import dev.durable.Schedule;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.QueueSettings;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A database installed by an earlier version, holding live instances, is upgraded in place by the shipped
 * changelog: only the new changesets run, every stored row is kept as it was, and the instances then run on.
 */
class SchemaUpgradeTest {

    private static final String SCHEMA = "durable_upgrade";

    record Order(int id) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final DataSource dataSource = TestDatabase.dataSource();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    @AfterEach
    void dropSchema() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }

    private static MachineDefinition orders() {
        return MachineDefinition.builder("orders", 1, Order.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.next("ship", state)
                        : Outcome.await("paid", state))
                .step("ship", (state, ctx) -> Outcome.done("shipped " + state.id()))
                .build();
    }

    private static MachineDefinition heartbeat() {
        return MachineDefinition.builder("heartbeat", 1, Object.class)
                .step("beat", (state, ctx) -> Outcome.done())
                .schedule(Schedule.cron("every-second", "* * * * * *"))
                .build();
    }

    @Test
    void aVersion1DatabaseWithLiveInstancesIsUpgradedInPlace() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource, "dev/durable/db/changelog-v1.xml");
        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog", String.class))
                .containsExactly("durable-schema-v1");

        // Live data on the version 1 schema, in every status: the rows as a client of version 1 inserted them (two
        // with a unique key) and as the engine of version 1 would have left them (parked, claimed by a node that then
        // died, done, failed, a signal on its way).
        long parked = insertAsVersion1(1, "order-1");
        long runnable = insertAsVersion1(2, null);
        long done = insertAsVersion1(3, "order-3");
        long executing = insertAsVersion1(4, null);
        long failed = insertAsVersion1(5, null);
        // A state the upgraded code would narrow: the type has no place for "legacy".
        long narrowed = jdbc.queryForObject("INSERT INTO " + SCHEMA + ".durable_instance (machine, machine_version,"
                + " step, state, queue) VALUES ('orders', 1, 'pay', '{\"id\": 8, \"legacy\": \"kept\"}',"
                + " 'default') RETURNING id", Long.class);
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'awaiting_signal', awaits = 'paid'"
                + " WHERE id = ?", parked);
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'done', result = '\"shipped 3\"'"
                + " WHERE id = ?", done);
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'executing', lease_owner = 'gone:1',"
                + " lease_token = nextval('" + SCHEMA + ".durable_lease_token_seq'),"
                + " lease_expires_at = now() - interval '1 minute' WHERE id = ?", executing);
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'failed', last_error = 'declined'"
                + " WHERE id = ?", failed);
        for (long id : List.of(runnable, executing)) {
            jdbc.update("INSERT INTO " + SCHEMA + ".durable_signal (instance_id, name, payload, dedup_key)"
                    + " VALUES (?, 'paid', '\"early\"', ?)", id, "evt-" + id);
        }
        List<Map<String, Object>> instancesBefore = rows("durable_instance");
        List<Map<String, Object>> signalsBefore = rows("durable_signal");

        schema.migrate(dataSource);

        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class)).containsExactly("durable-schema-v1", "durable-schema-v2", "durable-schema-v3",
                "durable-schema-v4", "durable-schema-v5", "durable-schema-v6", "durable-schema-v7",
                "durable-schema-v8", "durable-schema-v9", "durable-schema-v10", "durable-schema-v11",
                "durable-schema-v12", "durable-schema-v13", "durable-schema-v14", "durable-schema-v15",
                "durable-schema-v16", "durable-schema-v17", "durable-schema-v18", "durable-schema-v19");
        // Every stored value is kept; the new columns are empty (or zero: no instance has children yet).
        assertThat(rowsWithout("durable_instance", "deadline", "awaits_set", "correlation_key", "parent_id",
                "cancel_with_parent", "children_started", "children_ended", "awaits_children", "suspension", "trace_context"))
                .isEqualTo(instancesBefore);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_instance"
                + " WHERE deadline IS NOT NULL OR awaits_set IS NOT NULL OR correlation_key IS NOT NULL"
                + " OR parent_id IS NOT NULL OR cancel_with_parent IS NOT NULL OR awaits_children IS NOT NULL"
                + " OR children_started <> 0 OR children_ended <> 0 OR suspension IS NOT NULL"
                + " OR trace_context IS NOT NULL", Long.class)).isZero();
        assertThat(rowsWithout("durable_signal", "trace_context")).isEqualTo(signalsBefore);
        assertThat(jdbc.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)",
                Boolean.class, SCHEMA + ".durable_instance_deadline")).isTrue();
        assertThat(jdbc.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)",
                Boolean.class, SCHEMA + ".durable_instance_ended")).isTrue();
        for (String index : List.of("durable_instance_unique_key", "durable_instance_correlation_key",
                "durable_instance_parent", "durable_history_instance", "durable_history_at", "durable_instance_step",
                "durable_instance_suspended", "durable_history_minute_machine")) {
            assertThat(jdbc.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)",
                    Boolean.class, SCHEMA + "." + index)).as(index).isTrue();
        }
        assertInFlightIndexWidened();

        // What is in flight reads the rows written before the upgrade, through the index the upgrade built (the
        // runnable ones include the one whose state the code would narrow: it is suspended only when picked).
        InFlightReport inFlight = engines.build("reporter", settings -> settings.schema(SCHEMA), orders(), heartbeat())
                .client().inFlight();
        assertThat(inFlight.groups()).extracting(group -> group.describe() + " " + group.count() + " "
                + group.pendingSignals()).containsExactly(
                        "orders v1 at step 'pay' (runnable) 2 {paid=1}",
                        "orders v1 at step 'pay' (executing) 1 {paid=1}",
                        "orders v1 at step 'pay' (awaiting_signal) 1 {}");
        assertThat(inFlight.failed()).extracting(InFlightReport.Group::describe)
                .containsExactly("orders v1 at step 'pay' (failed)");

        // The upgraded database runs on: the engine registers its node, the crashed claim is reaped and re-run,
        // and every live instance finishes; the ended ones stay as they were. The new schedule table takes the
        // schedule the node declares, which fires.
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders(),
                heartbeat());
        DurableClient client = engine.client();
        // The keys of rows written before the upgrade are found through the index it built.
        assertThat(client.findByUniqueKey("order-1").map(DurableInstance::id)).contains(parked);
        assertThat(client.list(InstanceQuery.all().uniqueKey("order-3"))).extracting(DurableInstance::id)
                .containsExactly(done);
        engine.client().signal(parked, "paid", "late", "evt-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> List.of(parked, runnable, done, executing).stream()
                .allMatch(id -> "done".equals(status(id))));
        assertThat(status(failed)).isEqualTo("failed");
        // The state written before the upgrade that the code would narrow is not run: suspended, its JSON as it was.
        await().atMost(Duration.ofSeconds(20)).until(() -> client.find(narrowed).orElseThrow().status()
                == dev.durable.InstanceStatus.SUSPENDED);
        assertThat(jdbc.queryForObject("SELECT state::text FROM " + SCHEMA + ".durable_instance WHERE id = ?",
                String.class, narrowed)).isEqualTo("{\"id\": 8, \"legacy\": \"kept\"}");
        assertThat(client.find(narrowed).orElseThrow().lastError()).contains("would lose [$.legacy]");
        // An instance started on version 1 can be cancelled on the upgraded schema.
        long late = client.start("orders", new Order(6), StartOptions.defaults().delay(Duration.ofHours(1))).id();
        assertThat(engine.client().cancel(late, "upgraded").isCancelled()).isTrue();
        assertThat(status(late)).isEqualTo("cancelled");
        // The upgraded node records history from then on; what happened before the upgrade has none.
        assertThat(engine.client().history(late)).extracting(entry -> entry.event().label()).containsExactly("cancel");
        assertThat(engine.client().history(parked)).extracting(entry -> entry.event().label()).contains("done");
        // And one started on the upgraded schema with a correlation key is found by it.
        long correlated = client.start("orders", new Order(7), StartOptions.defaults().correlationKey("customer-7")
                .delay(Duration.ofHours(1))).id();
        assertThat(client.list(InstanceQuery.all().correlationKey("customer-7"))).extracting(DurableInstance::id)
                .containsExactly(correlated);
        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA
                + ".durable_instance WHERE machine = 'heartbeat' AND status = 'done'", Long.class) > 0);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_node", Long.class)).isOne();
    }

    /**
     * On 2026-11-25 the changelog shipped its versions 10 and 11 the other way round (10 the index of in-flight rows,
     * 11 suspension), and on 2026-11-26 as they are now. A database migrated by either upgrades in place: Liquibase
     * accepts both checksums of each, and version 12 makes sure both pieces are there whichever ran under which number.
     */
    @Test
    void aDatabaseMigratedWhileVersions10And11WereNumberedTheOtherWayIsUpgradedInPlace() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource, "dev/durable/db/changelog-renumbered.xml");
        long parked = insertAsVersion1(1, "order-1");
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'awaiting_signal', awaits = 'paid'"
                + " WHERE id = ?", parked);
        long runnable = insertAsVersion1(2, null);
        long suspended = insertAsVersion1(3, null);
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET suspension = 'would lose [$.legacy]',"
                + " eligible_at = 'infinity' WHERE id = ?", suspended);
        List<Map<String, Object>> instancesBefore = rows("durable_instance");

        schema.migrate(dataSource);

        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class)).endsWith("durable-schema-v10", "durable-schema-v11", "durable-schema-v12",
                "durable-schema-v13", "durable-schema-v14", "durable-schema-v15",
                "durable-schema-v16", "durable-schema-v17", "durable-schema-v18", "durable-schema-v19");
        assertThat(rowsWithout("durable_instance", "trace_context")).isEqualTo(instancesBefore);
        assertSuspensionAndInFlightInstalled();
        // And the instances run on: the suspended one stays suspended, the others finish.
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders());
        engine.client().signal(parked, "paid", "late", "evt-1");
        engine.client().signal(runnable, "paid", "late", "evt-2");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked))
                && "done".equals(status(runnable)));
        assertThat(engine.client().find(suspended).orElseThrow().status())
                .isEqualTo(dev.durable.InstanceStatus.SUSPENDED);
    }

    /**
     * An upgrade with the changelog of 2026-11-25 that stopped after its version 10 (the index of in-flight rows) left
     * no column for suspensions; the shipped changelog, which sees version 10 as applied and whose version 11 is that
     * index again, adds it in version 12.
     */
    @Test
    void anUpgradeThatStoppedBetweenTheRenumberedVersionsIsCompleted() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource, "dev/durable/db/changelog-renumbered-to-v10.xml");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.columns WHERE table_schema = ?"
                + " AND table_name = 'durable_instance' AND column_name = 'suspension'", Long.class, SCHEMA)).isZero();

        schema.migrate(dataSource);

        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class)).endsWith("durable-schema-v10", "durable-schema-v11", "durable-schema-v12",
                "durable-schema-v13", "durable-schema-v14", "durable-schema-v15",
                "durable-schema-v16", "durable-schema-v17", "durable-schema-v18", "durable-schema-v19");
        assertSuspensionAndInFlightInstalled();
    }

    /**
     * Version 13 widens the index of in-flight rows (docs/DESIGN.md, "Counting instances"): the upgrade builds the
     * wider one beside it, drops it and gives the new one its name, keeping every row as it was.
     */
    @Test
    void aVersion12DatabaseWithLiveInstancesGetsTheWiderIndexUnderTheSameName() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource, "dev/durable/db/changelog-v12.xml");
        long parked = insertAsVersion1(1, "order-1");
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'awaiting_signal', awaits = 'paid',"
                + " deadline = now() + interval '1 hour' WHERE id = ?", parked);
        long runnable = insertAsVersion1(2, null);
        assertThat(indexDefinition()).doesNotContain("INCLUDE");
        List<Map<String, Object>> instancesBefore = rows("durable_instance");

        schema.migrate(dataSource);

        assertThat(jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class)).endsWith("durable-schema-v12", "durable-schema-v13",
                "durable-schema-v14", "durable-schema-v15",
                "durable-schema-v16", "durable-schema-v17", "durable-schema-v18", "durable-schema-v19");
        assertThat(rowsWithout("durable_instance", "trace_context")).isEqualTo(instancesBefore);
        assertInFlightIndexWidened();
        // The instances run on, and what is in flight reads them through the widened index.
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders());
        assertThat(engine.client().inFlight().groups()).extracting(group -> group.describe() + " " + group.count())
                .contains("orders v1 at step 'pay' (awaiting_signal) 1");
        engine.client().signal(parked, "paid", "late", "evt-1");
        engine.client().signal(runnable, "paid", "late", "evt-2");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked))
                && "done".equals(status(runnable)));
    }

    /**
     * Version 13 run again after an attempt that stopped between its statements (the wider index built and the old
     * one dropped, the rename not done): every statement finds what it would do done, or does it, and the wider index
     * takes the name.
     */
    @Test
    void anUpgradeThatStoppedWithinVersion13IsCompleted() {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource, "dev/durable/db/changelog-v12.xml");
        jdbc.execute("CREATE INDEX durable_instance_step_v13 ON " + SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, status, id) INCLUDE (queue, eligible_at, deadline, awaits_children)"
                + " WHERE status IN ('runnable', 'awaiting_signal', 'failed')");
        jdbc.execute("DROP INDEX " + SCHEMA + ".durable_instance_step");

        schema.migrate(dataSource);

        assertInFlightIndexWidened();
    }

    /** The index of in-flight rows has version 13's columns, under its name, valid, and no other copy is left. */
    private void assertInFlightIndexWidened() {
        assertThat(indexDefinition()).contains("(machine, machine_version, step, status, id)")
                .contains("INCLUDE (queue, eligible_at, deadline, awaits_children)")
                .contains("WHERE (status = ANY");
        assertThat(jdbc.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)",
                Boolean.class, SCHEMA + ".durable_instance_step")).isTrue();
        assertThat(jdbc.queryForObject("SELECT to_regclass(?) IS NULL", Boolean.class,
                SCHEMA + ".durable_instance_step_v13")).isTrue();
    }

    private String indexDefinition() {
        return jdbc.queryForObject("SELECT pg_get_indexdef(to_regclass(?))", String.class,
                SCHEMA + ".durable_instance_step");
    }

    private void assertSuspensionAndInFlightInstalled() {
        assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.columns WHERE table_schema = ?"
                + " AND table_name = 'durable_instance' AND column_name = 'suspension'", Long.class, SCHEMA)).isOne();
        for (String index : List.of("durable_instance_step", "durable_instance_suspended")) {
            assertThat(jdbc.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)",
                    Boolean.class, SCHEMA + "." + index)).as(index).isTrue();
        }
    }

    /** A row as a client of version 1 inserted it: version 1's columns, runnable at its first step. */
    private long insertAsVersion1(int order, String uniqueKey) {
        return jdbc.queryForObject("INSERT INTO " + SCHEMA + ".durable_instance (machine, machine_version, step,"
                + " state, queue, unique_key) VALUES ('orders', 1, 'pay', ?::jsonb, 'default', ?) RETURNING id",
                Long.class, "{\"id\": " + order + "}", uniqueKey);
    }

    private String status(long id) {
        return jdbc.queryForObject("SELECT status::text FROM " + SCHEMA + ".durable_instance WHERE id = ?",
                String.class, id);
    }

    /**
     * Version 15 adds the trace context of an instance and of a signal (docs/DESIGN.md, "Tracing"): on a schema of
     * version 14 with rows, the upgrade adds both columns empty, keeps every stored value, raises the version, and the
     * instances run on.
     */
    @Test
    void anUpgradeFromVersion14AddsTheTraceContextEmpty() {
        DurableSchema schema = installedAsVersion(14, "ALTER TABLE {schema}.durable_instance DROP COLUMN trace_context",
                "ALTER TABLE {schema}.durable_signal DROP COLUMN trace_context", DROP_PATCHES);
        long parked = insertAsVersion1(1, "paid");
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_signal (instance_id, name, payload, dedup_key)"
                + " VALUES (?, 'other', '\"early\"', 'evt-0')", parked);
        List<Map<String, Object>> instancesBefore = rows("durable_instance");
        List<Map<String, Object>> signalsBefore = rows("durable_signal");

        upgrade(schema, 14);

        assertThat(rowsWithout("durable_instance", "trace_context")).isEqualTo(instancesBefore);
        assertThat(rowsWithout("durable_signal", "trace_context")).isEqualTo(signalsBefore);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_instance"
                + " WHERE trace_context IS NOT NULL", Long.class)).isZero();
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders());
        engine.client().signal(parked, "paid", "late", "evt-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked)));
    }

    /**
     * Version 16 adds the patches of the history (docs/DESIGN.md, "History"): on a schema of version 15 holding a
     * parked instance and its history, the upgrade adds both columns empty, keeps every history row, raises the
     * version, and the instance runs on, its new entries with their patches.
     */
    @Test
    void anUpgradeFromVersion15AddsTheHistorysPatchesEmptyAndTheInstancesRunOnRecordingThem() {
        DurableSchema schema = installedAsVersion(15, DROP_PATCHES);
        long parked = parkedWithItsAwaitInTheHistory();
        List<Map<String, Object>> historyBefore = rows("durable_history");
        List<Map<String, Object>> instancesBefore = rows("durable_instance");

        upgrade(schema, 15);

        assertThat(rowsWithout("durable_history", "patch", "upcast_patch")).isEqualTo(historyBefore);
        assertThat(rows("durable_instance")).isEqualTo(instancesBefore);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_history"
                + " WHERE patch IS NOT NULL OR upcast_patch IS NOT NULL", Long.class)).isZero();
        MachineDefinition counting = MachineDefinition.builder("orders", 1, Order.class)
                .initialStep("pay")
                .step("pay", (state, ctx) -> Outcome.next("ship", new Order(state.id() + 100)))
                .step("ship", (state, ctx) -> Outcome.done("shipped " + state.id()))
                .build();
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), counting);
        engine.client().signal(parked, "paid", "late", "evt-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked)));
        assertThat(jdbc.queryForList("SELECT patch::text FROM " + SCHEMA + ".durable_history WHERE instance_id = ?"
                + " AND event = 'next'", String.class, parked))
                .containsExactly("[{\"op\": \"replace\", \"path\": \"/id\", \"value\": 101}]");
    }

    /**
     * Version 17 indexes the history by time (docs/DESIGN.md, "Dashboard"): on a schema of version 16 holding an
     * instance and its history, the upgrade builds the index, valid, keeps every row, raises the version, and the
     * instance runs on, its new entries counted through the index.
     */
    @Test
    void anUpgradeFromVersion16IndexesTheHistoryByTimeAndTheInstancesRunOn() {
        DurableSchema schema = installedAsVersion(16, "DROP INDEX {schema}.durable_history_at");
        long parked = parkedWithItsAwaitInTheHistory();
        List<Map<String, Object>> historyBefore = rows("durable_history");
        List<Map<String, Object>> instancesBefore = rows("durable_instance");
        assertThat(jdbc.queryForObject("SELECT to_regclass(?) IS NULL", Boolean.class,
                SCHEMA + ".durable_history_at")).isTrue();

        upgrade(schema, 16);

        assertThat(jdbc.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)",
                Boolean.class, SCHEMA + ".durable_history_at")).isTrue();
        assertThat(jdbc.queryForObject("SELECT pg_get_indexdef(to_regclass(?))", String.class,
                SCHEMA + ".durable_history_at")).endsWith("USING btree (at)");
        assertThat(rows("durable_history")).isEqualTo(historyBefore);
        assertThat(rows("durable_instance")).isEqualTo(instancesBefore);
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders());
        engine.client().signal(parked, "paid", "late", "evt-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked)));
        assertThat(engine.client().transitionCounts("orders", java.time.Instant.now().minusSeconds(3600)))
                .extracting(count -> count.step() + " " + count.event().label() + " " + count.count())
                .contains("pay await 1");
    }

    /** An instance of version 1 parked on "paid", and the history entry of its await as an older node wrote it. */
    private long parkedWithItsAwaitInTheHistory() {
        long parked = insertAsVersion1(1, "paid");
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'awaiting_signal', awaits = 'paid'"
                + " WHERE id = ?", parked);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history (instance_id, step, event, status, attempt, node)"
                + " VALUES (?, 'pay', 'await', 'awaiting_signal', 0, 'old-node')", parked);
        return parked;
    }

    /**
     * Version 18 counts the history by machine and minute (docs/DESIGN.md, "Dashboard"): on a schema of version 17
     * holding a parked instance and its history of the last hours, the upgrade adds the two tables, nothing counted
     * yet, keeps every row and raises the version; a node then counts the history already there in the background,
     * the diagram's traffic reads those counts and the history after them alike, and the instance runs on.
     */
    @Test
    void anUpgradeFromVersion17CountsTheHistoryAlreadyThereAndTheInstancesRunOn() {
        DurableSchema schema = installedAsVersion(17, "DROP TABLE {schema}.durable_history_minute",
                "DROP TABLE {schema}.durable_history_rollup");
        long parked = insertAsVersion1(1, "paid");
        jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET status = 'awaiting_signal', awaits = 'paid'"
                + " WHERE id = ?", parked);
        // Three reruns of the step two hours ago, one half an hour ago, and the await a moment ago.
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history (instance_id, step, event, status, attempt, node, at)"
                + " SELECT ?, 'pay', 'retry', 'runnable', n, 'old-node', now() - interval '2 hours'"
                + " FROM generate_series(0, 2) n", parked);
        jdbc.update("INSERT INTO " + SCHEMA + ".durable_history (instance_id, step, event, status, attempt, node, at)"
                + " VALUES (?, 'pay', 'retry', 'runnable', 3, 'old-node', now() - interval '30 minutes'),"
                + " (?, 'pay', 'await', 'awaiting_signal', 4, 'old-node', now())", parked, parked);
        List<Map<String, Object>> historyBefore = rows("durable_history");
        List<Map<String, Object>> instancesBefore = rows("durable_instance");

        upgrade(schema, 17);

        assertThat(jdbc.queryForList("SELECT rolled_until::text FROM " + SCHEMA + ".durable_history_rollup",
                String.class)).containsExactly("-infinity");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_history_minute", Long.class))
                .isZero();
        assertThat(rows("durable_history")).isEqualTo(historyBefore);
        assertThat(rows("durable_instance")).isEqualTo(instancesBefore);
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA), orders());
        // The node's rollup counts at its start, up to the last closed minute.
        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject("SELECT rolled_until"
                + " > now() - interval '7 minutes' FROM " + SCHEMA + ".durable_history_rollup", Boolean.class));
        assertThat(jdbc.queryForList("SELECT machine || ' ' || step || ' ' || event || ' ' || n FROM " + SCHEMA
                + ".durable_history_minute ORDER BY minute", String.class))
                .containsExactly("orders pay retry 3", "orders pay retry 1");
        assertThat(engine.client().transitionCounts("orders", java.time.Instant.now().minusSeconds(3 * 3600)))
                .extracting(count -> count.step() + " " + count.event().label() + " " + count.count())
                .containsExactly("pay await 1", "pay retry 4");
        engine.client().signal(parked, "paid", "late", "evt-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked)));
        assertThat(engine.client().transitionCounts("orders", java.time.Instant.now().minusSeconds(3 * 3600)))
                .extracting(count -> count.step() + " " + count.event().label() + " " + count.count())
                .contains("pay retry 4", "pay next 1", "ship done 1");
    }

    /**
     * Version 19 adds the cluster-wide limits of queues (docs/DESIGN.md, "Cluster-wide limits"): on a schema of version
     * 18 holding a parked instance and a runnable one, the upgrade adds the two tables, empty, keeps every row and
     * raises the version; a node with limits on the instances' queue then runs both under them.
     */
    @Test
    void anUpgradeFromVersion18AddsTheLimitTablesEmptyAndTheInstancesRunOnUnderLimits() {
        DurableSchema schema = installedAsVersion(18, "DROP TABLE {schema}.durable_queue_limit_waiter",
                "DROP TABLE {schema}.durable_queue_limit");
        long parked = parkedWithItsAwaitInTheHistory();
        long runnable = insertAsVersion1(2, "fresh");
        List<Map<String, Object>> instancesBefore = rows("durable_instance");

        upgrade(schema, 18);

        assertThat(jdbc.queryForObject("SELECT (SELECT count(*) FROM " + SCHEMA + ".durable_queue_limit)"
                + " + (SELECT count(*) FROM " + SCHEMA + ".durable_queue_limit_waiter)", Long.class)).isZero();
        assertThat(rows("durable_instance")).isEqualTo(instancesBefore);
        DurableEngine engine = engines.start("upgraded-node", settings -> settings.schema(SCHEMA).queue("default",
                QueueSettings.defaults().withLimits(new ClusterLimits(1, ClusterLimits.Rate.parse("100/1s")))),
                orders());
        engine.client().signal(parked, "paid", "late", "evt-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(parked)));
        engine.client().signal(runnable, "paid", "late", "evt-2");
        await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(status(runnable)));
        assertThat(jdbc.queryForList("SELECT queue FROM " + SCHEMA + ".durable_queue_limit", String.class))
                .containsExactly("default");
    }

    /** What version 16 added, undone. */
    private static final String DROP_PATCHES = "ALTER TABLE {schema}.durable_history DROP COLUMN patch,"
            + " DROP COLUMN upcast_patch";

    /**
     * The schema as {@code version} shipped it: installed whole, then {@code undo} (statements on {@code {schema}})
     * takes back what the later versions added, and their changesets are forgotten, so that the next install runs
     * them.
     */
    private DurableSchema installedAsVersion(int version, String... undo) {
        jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        DurableSchema schema = DurableSchema.named(SCHEMA);
        schema.migrate(dataSource);
        for (String statement : undo) {
            jdbc.execute(statement.replace("{schema}", SCHEMA));
        }
        for (int later = version + 1; later <= DurableSchema.VERSION; later++) {
            jdbc.update("DELETE FROM " + SCHEMA + ".durable_changelog WHERE id = ?", "durable-schema-v" + later);
        }
        jdbc.update("UPDATE " + SCHEMA + ".durable_schema_version SET version = ?", version);
        return schema;
    }

    /**
     * Installs the shipped changelog over {@code schema}, taken back to {@code version}: the changesets after it run,
     * in order, and the schema says it is of this code's version.
     */
    private void upgrade(DurableSchema schema, int version) {
        schema.migrate(dataSource);
        List<String> ran = jdbc.queryForList("SELECT id FROM " + SCHEMA + ".durable_changelog ORDER BY orderexecuted",
                String.class);
        assertThat(ran.subList(ran.indexOf("durable-schema-v" + version), ran.size())).containsExactlyElementsOf(
                IntStream.rangeClosed(version, DurableSchema.VERSION).mapToObj(v -> "durable-schema-v" + v).toList());
        assertThat(schema.installedVersion(dataSource)).isEqualTo(DurableSchema.VERSION);
    }

    private List<Map<String, Object>> rowsWithout(String table, String... columns) {
        return jdbc.queryForList("SELECT (to_jsonb(t) - ?::text[])::text AS row FROM " + SCHEMA + "." + table
                + " t ORDER BY id", (Object) columns);
    }

    private List<Map<String, Object>> rows(String table) {
        return jdbc.queryForList("SELECT to_jsonb(t)::text AS row FROM " + SCHEMA + "." + table + " t ORDER BY id");
    }
}
