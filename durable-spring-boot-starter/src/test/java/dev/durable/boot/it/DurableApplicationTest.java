package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.Schedule;
import dev.durable.StartOptions;
import dev.durable.boot.actuate.DurableEndpoint;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineTestHooks;
import java.util.Objects;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

/** An annotated machine driven through every outcome in a running web application, observed over HTTP. */
class DurableApplicationTest extends IntegrationTest {

    @Autowired
    DurableClient durable;

    @Autowired
    DurableEngine engine;

    @Value("${local.server.port}")
    int port;

    @Test
    void annotatedMachineGoesThroughEveryOutcome() {
        long done = durable.start(Workflow.class, new Workflow.State("ada", 0)).id();
        long stopped = durable.start("workflow", new Workflow.State("stop-bob", 0)).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(done) && awaits(stopped));
        // next (start -> count), retry twice (count), an exception handed to the closest @OnError (flaky), await
        assertThat(Workflow.runs).containsSubsequence("ada:start:0", "ada:count:0", "ada:count:1", "ada:count:2",
                "ada:flaky:0", "ada:flaky:1", "ada:wait:0");
        assertThat(Workflow.handled).anySatisfy(error -> assertThat(error)
                .isInstanceOf(Workflow.FlakyException.class).hasMessage("first try of ada fails"));

        durable.signal(done, "go", null, "go-ada").orThrow();
        durable.signal(stopped, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(done) && terminal(stopped));

        DurableInstance ada = durable.find(done).orElseThrow();
        assertThat(ada.status()).isEqualTo(InstanceStatus.DONE);
        assertThat(ada.resultJson()).contains("\"greeting\": \"bye ada\"").contains("\"count\": 2");
        DurableInstance bob = durable.find(stopped).orElseThrow();
        assertThat(bob.status()).isEqualTo(InstanceStatus.FAILED);
        assertThat(bob.lastError()).isEqualTo("asked to stop");
    }

    /** Rows of a version no live node runs are listed by machine and version, with how many wait and since when. */
    @Test
    void actuatorEndpointListsStrandedInstances() throws Exception {
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue, eligible_at)"
                + " VALUES ('workflow', 7, 'start', '{}', 'default', now() - interval '2 minutes')");
        try {
            EngineTestHooks.reapNow(engine);

            JsonNode stranded = new Http(port).get("/actuator/durable").json().path("stranded");
            assertThat(stranded.size()).isOne();
            assertThat(stranded.get(0).path("machine").asString()).isEqualTo("workflow");
            assertThat(stranded.get(0).path("version").asInt()).isEqualTo(7);
            assertThat(stranded.get(0).path("waiting").asLong()).isEqualTo(1);
            assertThat(stranded.get(0).path("since").asString()).isNotEmpty();
        } finally {
            TestDatabase.jdbc().update("DELETE FROM " + TestDatabase.SCHEMA + ".durable_instance"
                    + " WHERE machine_version = 7");
            EngineTestHooks.reapNow(engine);
        }
        assertThat(new Http(port).get("/actuator/durable").json().path("stranded").size()).isZero();
    }

    /** Schedules are rows every node lists; one whose machine no live node runs is listed as stranded. */
    @Test
    void actuatorEndpointListsSchedulesAndStrandedSchedules() throws Exception {
        durable.schedule(Workflow.class, Schedule.cron("workflow-nightly", "0 0 2 * * *").zone("Europe/Berlin"),
                new Workflow.State("nightly", 0));
        durable.pauseSchedule("workflow-nightly");
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_schedule (name, machine, cron,"
                + " zone, miss_policy, next_fire_at) VALUES ('ghost-hourly', 'ghost', '@hourly', 'UTC', 'skip',"
                + " now() - interval '1 hour')");
        EngineTestHooks.reapNow(engine);

        JsonNode durableJson = new Http(port).get("/actuator/durable").json();
        JsonNode schedules = durableJson.path("schedules");
        assertThat(schedules.size()).as(schedules.toString()).isEqualTo(2);
        JsonNode nightly = schedules.get(1);
        assertThat(nightly.path("name").asString()).isEqualTo("workflow-nightly");
        assertThat(nightly.path("machine").asString()).isEqualTo("workflow");
        assertThat(nightly.path("cron").asString()).isEqualTo("0 0 2 * * *");
        assertThat(nightly.path("zone").asString()).isEqualTo("Europe/Berlin");
        assertThat(nightly.path("missPolicy").asString()).isEqualTo("run_once");
        assertThat(nightly.path("paused").asBoolean()).isTrue();
        assertThat(nightly.path("declared").asBoolean()).isFalse();
        assertThat(nightly.path("nextFireAt").asString()).isNotEmpty();
        JsonNode stranded = durableJson.path("strandedSchedules");
        assertThat(stranded.size()).isOne();
        assertThat(stranded.get(0).path("name").asString()).isEqualTo("ghost-hourly");
        assertThat(stranded.get(0).path("machine").asString()).isEqualTo("ghost");

        // An operator resumes and pauses a schedule for the whole cluster.
        Http http = new Http(port);
        JsonNode resumed = http.post("/actuator/durable", "{\"schedule\":\"workflow-nightly\",\"action\":\"resume\"}")
                .json();
        assertThat(resumed.path("paused").asBoolean()).isFalse();
        assertThat(durable.findSchedule("workflow-nightly").orElseThrow().paused()).isFalse();
        JsonNode paused = http.post("/actuator/durable", "{\"schedule\":\"workflow-nightly\",\"action\":\"pause\"}")
                .json();
        assertThat(paused.path("paused").asBoolean()).isTrue();
        Http.Response unknown = http.post("/actuator/durable", "{\"schedule\":\"nope\",\"action\":\"pause\"}");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("error").asString()).isEqualTo("No schedule 'nope'");
        Http.Response both = http.post("/actuator/durable",
                "{\"schedule\":\"workflow-nightly\",\"queue\":\"default\",\"action\":\"pause\"}");
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.json().path("error").asString()).isEqualTo("Name a queue or a schedule, not both");
    }

    @Test
    void actuatorEndpointShowsMachinesQueuesAndTheNode() throws Exception {
        long parked = durable.start(Workflow.class, new Workflow.State("carl", 0)).id();
        long finished = durable.start(Workflow.class, new Workflow.State("dora", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(parked) && awaits(finished));
        durable.signal(finished, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(finished));
        // Nothing on this node works a queue named 'other': the row stays runnable and ages. One statement: made
        // runnable and due on its own queue first, the default queue's poller could take it before it moved.
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = 'runnable',"
                + " eligible_at = now() - interval '5 minutes', queue = 'other', awaits = NULL WHERE id = ?", parked);

        Http.Response response = new Http(port).get("/actuator/durable");
        assertThat(response.status()).isEqualTo(200);
        JsonNode body = response.json();
        assertThat(body.path("node").path("state").asString()).isEqualTo("running");
        assertThat(body.path("node").path("id").asString()).startsWith("test-node:");
        assertThat(body.path("machines").findValuesAsString("name")).contains("workflow", "blocker");
        JsonNode workflow = machine(body, "workflow");
        assertThat(workflow.path("version").asInt()).isEqualTo(1);
        assertThat(workflow.path("queue").asString()).isEqualTo("default");
        assertThat(workflow.path("initialStep").asString()).isEqualTo("start");
        assertThat(workflow.path("steps").valueStream().map(JsonNode::asString))
                .containsExactlyInAnyOrder("count", "finish", "flaky", "start", "wait");

        JsonNode defaults = body.path("queues").path("default");
        assertThat(defaults.path("counts").path("done").asLong()).isEqualTo(1);
        assertThat(defaults.path("counts").has("awaiting_signal")).isTrue();
        assertThat(defaults.path("concurrency").asInt()).isEqualTo(10);
        assertThat(defaults.has("claims")).isTrue();
        assertThat(defaults.path("paused").asBoolean()).isFalse();
        assertThat(defaults.path("expiredLeases").asLong()).isZero();
        JsonNode other = body.path("queues").path("other");
        assertThat(other.path("counts").path("runnable").asLong()).isEqualTo(1);
        assertThat(other.path("oldestRunnableAge").asString()).startsWith("PT5M").endsWith("S");
        assertThat(other.path("concurrency").asInt()).isZero();
        assertThat(body.path("queues").path("slow").path("concurrency").asInt()).isEqualTo(4);
        // What the unfinished instances wait for, every reason present: the row moved to 'other' is due, and is an
        // instance of workflow v1; the default queue holds only the done one, which waits for nothing.
        assertThat(other.path("reasons").propertyNames()).containsExactly("ready", "timer", "executing", "signal", "deadline",
                "children", "suspended", "failed");
        assertThat(other.path("reasons").path("ready").asLong()).isEqualTo(1);
        assertThat(other.path("reasons").valueStream().mapToLong(JsonNode::asLong).sum()).isEqualTo(1);
        assertThat(other.path("machines")).hasSize(1);
        assertThat(other.path("machines").get(0).path("machine").asString()).isEqualTo("workflow");
        assertThat(other.path("machines").get(0).path("version").asInt()).isEqualTo(1);
        assertThat(other.path("machines").get(0).path("reasons").path("ready").asLong()).isEqualTo(1);
        assertThat(defaults.path("reasons").valueStream().mapToLong(JsonNode::asLong).sum()).isZero();
        assertThat(defaults.path("machines")).isEmpty();
    }

    @Test
    void instanceIsReadByIdWithoutItsStateAndResult() throws Exception {
        long id = durable.start(Workflow.class, new Workflow.State("erin", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(id));
        Http http = new Http(port);

        JsonNode instance = http.get("/actuator/durable/" + id).json();
        assertThat(instance.path("id").asLong()).isEqualTo(id);
        assertThat(instance.path("machine").asString()).isEqualTo("workflow");
        assertThat(instance.path("step").asString()).isEqualTo("wait");
        assertThat(instance.path("status").asString()).isEqualTo("awaiting_signal");
        assertThat(instance.path("awaits").asString()).isEqualTo("go");
        assertThat(instance.path("state").isMissingNode() || instance.path("state").isNull()).isTrue();
        assertThat(instance.has("state")).isFalse();
        assertThat(instance.toString()).doesNotContain("\"name\"");
        assertThat(http.get("/actuator/durable/999999").status()).isEqualTo(404);

        DurableEndpoint.InstanceDescriptor shown = new DurableEndpoint(engine, Show.ALWAYS, Set.of())
                .instance(id, SecurityContext.NONE);
        assertThat(shown).isNotNull();
        assertThat(String.valueOf(shown.state())).contains("\"name\":\"erin\"");
    }

    /**
     * A history entry's patch (docs/DESIGN.md, "History") is shown by the rule of the state: over HTTP at the default
     * {@code show-values=never} with its paths and no value; to a reader the endpoint shows values to, whole.
     */
    @Test
    void theHistorysPatchesAreShownUnderTheRuleOfTheState() throws Exception {
        long id = durable.start(Workflow.class, new Workflow.State("nell", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(id));

        // start (no change), count retried twice (count 0 -> 1 -> 2), ...
        JsonNode hidden = new Http(port).get("/actuator/durable/" + id).json().path("history");
        assertThat(hidden.get(0).has("patch")).isFalse(); // the endpoint leaves nulls out
        assertThat(hidden.get(1).path("patch").toString())
                .isEqualTo("[{\"op\":\"replace\",\"path\":\"/count\",\"value\":\"******\"}]");
        assertThat(hidden.get(2).path("patch").toString())
                .isEqualTo("[{\"op\":\"replace\",\"path\":\"/count\",\"value\":\"******\"}]");
        SecurityContext operator = context("operator");
        SecurityContext visitor = context("visitor");
        DurableEndpoint byRole = new DurableEndpoint(engine, Show.WHEN_AUTHORIZED, Set.of("operator"));
        assertThat(String.valueOf(Objects.requireNonNull(byRole.instance(id, visitor)).history().get(2).patch()))
                .isEqualTo("[{\"op\":\"replace\",\"path\":\"/count\",\"value\":\"******\"}]");
        assertThat(String.valueOf(Objects.requireNonNull(byRole.instance(id, operator)).history().get(2).patch()))
                .isEqualTo("[{\"op\":\"replace\",\"path\":\"/count\",\"value\":2}]");
        assertThat(String.valueOf(Objects.requireNonNull(new DurableEndpoint(engine, Show.ALWAYS, Set.of())
                .instance(id, SecurityContext.NONE)).history().get(1).patch()))
                .isEqualTo("[{\"op\":\"replace\",\"path\":\"/count\",\"value\":1}]");
        // The client reads the patch whole.
        assertThat(durable.history(id).get(1).patch().operations().get(0).path("value").asInt()).isEqualTo(1);
    }

    /** A signed-in reader holding {@code role} only. */
    private static SecurityContext context(String role) {
        return new SecurityContext() {
            @Override
            public java.security.Principal getPrincipal() {
                return () -> role + "-user";
            }

            @Override
            public boolean isUserInRole(String name) {
                return name.equals(role);
            }
        };
    }

    @Test
    void failedInstanceIsRetriedAndQueuesPausedThroughTheEndpoint() throws Exception {
        long id = durable.start(Workflow.class, new Workflow.State("stop-fred", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(id));
        durable.signal(id, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(id));
        Http http = new Http(port);

        Http.Response retried = http.post("/actuator/durable/" + id, "{\"action\":\"retry\"}");
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.json().path("id").asLong()).isEqualTo(id);
        assertThat(retried.json().path("result").asString()).isEqualTo("retried");
        assertThat(retried.json().path("statusBefore").asString()).isEqualTo("failed");
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(id));
        assertThat(Workflow.runs.stream().filter(run -> run.equals("stop-fred:finish:0"))).hasSize(2);

        JsonNode paused = http.post("/actuator/durable", "{\"queue\":\"default\",\"action\":\"pause\"}").json();
        assertThat(paused.path("paused").asBoolean()).isTrue();
        long waiting = durable.start(Workflow.class, new Workflow.State("gil", 0)).id();
        assertThat(http.get("/actuator/durable").json().path("queues").path("default").path("paused").asBoolean())
                .isTrue();
        assertThat(TestDatabase.status(waiting)).isEqualTo("runnable");
        JsonNode resumed = http.post("/actuator/durable", "{\"queue\":\"default\",\"action\":\"resume\"}").json();
        assertThat(resumed.path("paused").asBoolean()).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(waiting));
    }

    @Test
    void aBadQueueRequestIsAnsweredWithTheProblemAndTheAllowedValues() throws Exception {
        Http http = new Http(port);

        Http.Response unknownAction = http.post("/actuator/durable", "{\"queue\":\"default\",\"action\":\"stop\"}");
        assertThat(unknownAction.status()).isEqualTo(400);
        assertThat(unknownAction.json().path("error").asString()).isEqualTo("Unknown action 'stop' for a queue");
        assertThat(strings(unknownAction.json().path("actions"))).containsExactly("pause", "resume");

        Http.Response unknownQueue = http.post("/actuator/durable", "{\"queue\":\"nope\",\"action\":\"pause\"}");
        assertThat(unknownQueue.status()).isEqualTo(400);
        assertThat(unknownQueue.json().path("error").asString()).isEqualTo("Unknown queue 'nope' on this node");
        assertThat(strings(unknownQueue.json().path("queues"))).containsExactly("default", "shutdown", "slow");

        Http.Response noQueue = http.post("/actuator/durable", "{\"action\":\"pause\"}");
        assertThat(noQueue.status()).isEqualTo(400);
        assertThat(noQueue.json().path("error").asString())
                .isEqualTo("Name the queue, e.g. {\"queue\":\"default\",\"action\":\"pause\"}");
        assertThat(strings(noQueue.json().path("queues"))).containsExactly("default", "shutdown", "slow");
        assertThat(engine.queues().get("default").paused()).isFalse();

        // Over JMX, which has no status or body, the message says it all.
        assertThatThrownBy(() -> new DurableEndpoint(engine, Show.NEVER, Set.of()).control("nope", null, "pause"))
                .isInstanceOf(InvalidEndpointRequestException.class)
                .hasMessage("Unknown queue 'nope' on this node; queues: [default, shutdown, slow]");
    }

    @Test
    void aBadInstanceRequestIsAnsweredWithTheProblemAndTheAllowedValues() throws Exception {
        long id = durable.start(Workflow.class, new Workflow.State("hal", 0)).id();
        Http http = new Http(port);

        Http.Response unknownAction = http.post("/actuator/durable/" + id, "{\"action\":\"restart\"}");
        assertThat(unknownAction.status()).isEqualTo(400);
        assertThat(unknownAction.json().path("error").asString()).isEqualTo("Unknown action 'restart' for an instance");
        assertThat(strings(unknownAction.json().path("actions"))).containsExactly("retry", "cancel", "rerun");

        Http.Response noAction = http.post("/actuator/durable/" + id, "{}");
        assertThat(noAction.status()).isEqualTo(400);
        assertThat(noAction.json().path("error").asString()).isEqualTo("Name the action, e.g. {\"action\":\"retry\"}");

        Http.Response unknownInstance = http.post("/actuator/durable/999999", "{\"action\":\"retry\"}");
        assertThat(unknownInstance.status()).isEqualTo(404);
        assertThat(unknownInstance.json().path("error").asString()).isEqualTo("No instance 999999");

        Http.Response notAnId = http.post("/actuator/durable/orders", "{\"action\":\"retry\"}");
        assertThat(notAnId.status()).isEqualTo(400);
        assertThat(notAnId.json().path("error").asString()).isEqualTo("'orders' is not an instance id (a number)");
    }

    @Test
    void anInstanceIsCancelledOverHttpOnceAndAnEndedOneIsAConflict() throws Exception {
        long parked = durable.start(Workflow.class, new Workflow.State("jo", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(parked));
        Http http = new Http(port);

        Http.Response cancelled = http.post("/actuator/durable/" + parked,
                "{\"action\":\"cancel\",\"reason\":\"customer withdrew\"}");
        Http.Response again = http.post("/actuator/durable/" + parked, "{\"action\":\"cancel\"}");

        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().path("result").asString()).isEqualTo("cancelled");
        assertThat(cancelled.json().path("statusBefore").asString()).isEqualTo("awaiting_signal");
        assertThat(again.json().path("result").asString()).isEqualTo("already_cancelled");
        assertThat(durable.find(parked).orElseThrow().lastError()).isEqualTo("customer withdrew");
        JsonNode read = http.get("/actuator/durable/" + parked).json();
        assertThat(read.path("status").asString()).isEqualTo("cancelled");
        // Its history, oldest first: start, count (retried twice), flaky (retried once), then the park and the cancel.
        assertThat(strings(read.path("history"), "event")).containsExactly("next", "retry", "retry", "next", "retry",
                "next", "await", "cancel");
        JsonNode cancel = read.path("history").get(7);
        assertThat(cancel.path("error").asString()).isEqualTo("customer withdrew");
        assertThat(cancel.path("status").asString()).isEqualTo("cancelled");
        assertThat(cancel.path("node").asString()).isEqualTo(engine.nodeId());
        assertThat(read.path("history").get(0).path("durationMs").isNumber()).isTrue();

        long ended = durable.start(Workflow.class, new Workflow.State("stop-kim", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(ended));
        durable.signal(ended, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(ended));
        Http.Response conflict = http.post("/actuator/durable/" + ended, "{\"action\":\"cancel\"}");
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.json().path("error").asString())
                .isEqualTo("Instance " + ended + " is failed; only an unfinished instance can be cancelled");
        assertThat(TestDatabase.status(ended)).isEqualTo("failed");
        assertThat(http.post("/actuator/durable/999999", "{\"action\":\"cancel\"}").status()).isEqualTo(404);
    }

    @Test
    void retryingAnInstanceNeitherFailedNorSuspendedIsAConflictAndChangesNothing() throws Exception {
        long parked = durable.start(Workflow.class, new Workflow.State("lou", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(parked));
        Http http = new Http(port);
        int entries = durable.history(parked).size();

        Http.Response conflict = http.post("/actuator/durable/" + parked, "{\"action\":\"retry\"}");

        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.json().path("error").asString()).isEqualTo("Instance " + parked
                + " is awaiting_signal; only a failed or suspended instance can be retried");
        assertThat(TestDatabase.status(parked)).isEqualTo("awaiting_signal");
        assertThat(durable.history(parked)).hasSize(entries);
        Http.Response unknown = http.post("/actuator/durable/999999", "{\"action\":\"retry\"}");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("error").asString()).isEqualTo("No instance 999999");
    }

    /** An operator's rerun through the endpoint (docs/DESIGN.md, "Operator repair"), and its refusals. */
    @Test
    void anEndedInstanceIsRerunFromAStepWithAnEditedStateThroughTheEndpoint() throws Exception {
        long id = durable.start(Workflow.class, new Workflow.State("stop-ann", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(id));
        durable.signal(id, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(id));
        Http http = new Http(port);
        int entries = durable.history(id).size();

        Http.Response unknownStep = http.post("/actuator/durable/" + id, "{\"action\":\"rerun\",\"step\":\"fly\"}");
        assertThat(unknownStep.status()).isEqualTo(400);
        assertThat(unknownStep.json().path("error").asString()).startsWith("workflow v1 has no step 'fly'");
        Http.Response notJson = http.post("/actuator/durable/" + id,
                "{\"action\":\"rerun\",\"step\":\"finish\",\"state\":\"{name\"}");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.json().path("error").asString()).startsWith("The state is not JSON text");
        assertThat(durable.history(id)).hasSize(entries);
        assertThat(TestDatabase.status(id)).isEqualTo("failed");

        Http.Response rerun = http.post("/actuator/durable/" + id, "{\"action\":\"rerun\",\"step\":\"finish\","
                + "\"state\":\"{\\\"name\\\":\\\"ann\\\",\\\"count\\\":5}\"}");

        assertThat(rerun.status()).isEqualTo(200);
        assertThat(rerun.json().path("result").asString()).isEqualTo("rerun");
        assertThat(rerun.json().path("statusBefore").asString()).isEqualTo("failed");
        assertThat(rerun.json().path("operator").asString()).isEqualTo("actuator");
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(durable.find(id).orElseThrow().resultJson()).contains("bye ann").contains("5");
        assertThat(durable.history(id).get(entries).error())
                .isEqualTo("rerun from step 'finish' by actuator, state edited");
        Http.Response again = http.post("/actuator/durable/" + id, "{\"action\":\"cancel\"}");
        assertThat(again.status()).isEqualTo(409);
    }

    @Test
    void retryingAnInstanceWhoseUniqueKeyAnotherNowHoldsIsAConflict() throws Exception {
        long failed = durable.start(Workflow.class, new Workflow.State("stop-ivy", 0),
                StartOptions.defaults().uniqueKey("ivy")).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> awaits(failed));
        durable.signal(failed, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> terminal(failed));
        // A failed instance lets go of its unique key; a new one takes it.
        durable.start(Workflow.class, new Workflow.State("ivy", 0), StartOptions.defaults().uniqueKey("ivy"));

        Http.Response conflict = new Http(port).post("/actuator/durable/" + failed, "{\"action\":\"retry\"}");
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.json().path("error").asString())
                .isEqualTo("Instance " + failed + " cannot be retried: another instance holds its unique key now");
        assertThat(TestDatabase.status(failed)).isEqualTo("failed");
    }

    @Test
    void theDiscoveryLinksReadLikeThePathsTheyName() throws Exception {
        Http http = new Http(port);
        JsonNode links = http.get("/actuator").json().path("_links");

        assertThat(links.propertyNames()).filteredOn(name -> name.startsWith("durable"))
                .containsExactlyInAnyOrder("durable", "durable-id");
        assertThat(links.path("durable").path("href").asString()).endsWith("/actuator/durable");
        assertThat(links.path("durable").path("templated").asBoolean()).isFalse();
        assertThat(links.path("durable-id").path("href").asString()).endsWith("/actuator/durable/{id}");
        assertThat(links.path("durable-id").path("templated").asBoolean()).isTrue();
    }

    @Test
    void healthIsUpWhileTheNodeRuns() throws Exception {
        Http.Response response = new Http(port).get("/actuator/health");
        JsonNode durableHealth = response.json().path("components").path("durable");
        assertThat(durableHealth.path("status").asString()).isEqualTo("UP");
        assertThat(durableHealth.path("details").path("state").asString()).isEqualTo("running");
        assertThat(durableHealth.path("details").path("zombies").asInt()).isZero();
        assertThat(durableHealth.path("details").path("maxZombies").asInt()).isEqualTo(10);
    }

    private static List<String> strings(JsonNode array) {
        return array.valueStream().map(JsonNode::asString).toList();
    }

    /** The text of {@code field} of each object of {@code array}. */
    private static List<String> strings(JsonNode array, String field) {
        return array.valueStream().map(element -> element.path(field).asString()).toList();
    }

    private static JsonNode machine(JsonNode body, String name) {
        for (JsonNode machine : body.path("machines")) {
            if (machine.path("name").asString().equals(name)) {
                return machine;
            }
        }
        throw new AssertionError("no machine " + name + " in " + body);
    }

    private boolean awaits(long id) {
        return durable.find(id).map(instance -> instance.status() == InstanceStatus.AWAITING_SIGNAL).orElse(false);
    }

    private boolean terminal(long id) {
        return durable.find(id).map(instance -> instance.status().isTerminal()).orElse(false);
    }
}
