package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.StartOptions;
import dev.durable.boot.actuate.DurableEndpoint;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.runtime.DurableEngine;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import tools.jackson.databind.JsonNode;

/**
 * Finding instances and acting on them by business key over HTTP: {@code /actuator/durable/instances} (search,
 * bulk retry and cancel) and {@code /actuator/durable/holder} (the holder of a unique key), with the client's
 * criteria and answers; a bad request is answered with the problem and what is allowed, and changes nothing.
 */
class BusinessKeysEndpointTest extends IntegrationTest {

    @Autowired
    DurableClient durable;

    @Autowired
    DurableEngine engine;

    @Value("${local.server.port}")
    int port;

    @Test
    void instancesAreSearchedWithTheClientsCriteriaAndPagedByKeyset() throws Exception {
        long a = park("ann", StartOptions.defaults().uniqueKey("order-a").correlationKey("cust-1"));
        long b = park("ben", StartOptions.defaults().uniqueKey("order-b").correlationKey("cust-1"));
        long c = park("cy", StartOptions.defaults().uniqueKey("order-c"));
        Http http = new Http(port);

        JsonNode first = http.get("/actuator/durable/instances?machine=workflow&status=awaiting_signal&limit=2").json();
        assertThat(ids(first)).containsExactly(a, b);
        assertThat(first.path("more").asBoolean()).isTrue();
        assertThat(first.path("lastId").asLong()).isEqualTo(b);
        JsonNode second = http.get("/actuator/durable/instances?machine=workflow&status=awaiting_signal&limit=2"
                + "&afterId=" + b).json();
        assertThat(ids(second)).containsExactly(c);
        assertThat(second.path("more").asBoolean()).isFalse();

        assertThat(ids(http.get("/actuator/durable/instances?correlationKey=cust-1").json())).containsExactly(a, b);
        assertThat(ids(http.get("/actuator/durable/instances?machine=workflow&order=newest_first&limit=2").json()))
                .containsExactly(c, b);
        // Several statuses: comma-separated, or the parameter repeated.
        assertThat(ids(http.get("/actuator/durable/instances?machine=workflow&status=done,awaiting_signal").json()))
                .containsExactly(a, b, c);
        assertThat(ids(http.get("/actuator/durable/instances?status=done&status=failed").json())).isEmpty();
        assertThat(ids(http.get("/actuator/durable/instances?createdFrom=2000-01-01T00:00:00Z&errorContains=zzz")
                .json())).isEmpty();

        JsonNode byKey = http.get("/actuator/durable/instances?uniqueKey=order-b").json().path("instances").get(0);
        assertThat(byKey.path("id").asLong()).isEqualTo(b);
        assertThat(byKey.path("uniqueKey").asString()).isEqualTo("order-b");
        assertThat(byKey.path("holdsUniqueKey").asBoolean()).isTrue();
        assertThat(byKey.path("correlationKey").asString()).isEqualTo("cust-1");
        assertThat(byKey.path("status").asString()).isEqualTo("awaiting_signal");
        assertThat(byKey.has("state")).as("values are not shown by default").isFalse();
        DurableEndpoint showing = new DurableEndpoint(engine, Show.ALWAYS, Set.of());
        assertThat(String.valueOf(showing.instances(InstanceQuery.all().uniqueKey("order-b"), SecurityContext.NONE)
                .instances().get(0).state())).contains("\"name\":\"ben\"");
        assertThat(String.valueOf(showing.holder("order-b", SecurityContext.NONE).state())).contains("ben");

        assertThat(http.get("/actuator/durable/holder?uniqueKey=order-c").json().path("id").asLong()).isEqualTo(c);
        Http.Response none = http.get("/actuator/durable/holder?uniqueKey=order-z");
        assertThat(none.status()).isEqualTo(404);
        assertThat(none.json().path("error").asString()).isEqualTo("No instance holds unique key 'order-z'");
        Http.Response missing = http.get("/actuator/durable/999999");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().path("error").asString()).isEqualTo("No instance 999999");
    }

    @Test
    void aBadSearchIsAnsweredWithTheProblemAndTheAllowedValues() throws Exception {
        Http http = new Http(port);

        Http.Response status = http.get("/actuator/durable/instances?status=runnable,stuck");
        assertThat(status.status()).isEqualTo(400);
        assertThat(status.json().path("error").asString()).isEqualTo("Unknown instance status 'stuck'");
        assertThat(strings(status.json().path("statuses"))).containsExactly("runnable", "executing",
                "awaiting_signal", "suspended", "done", "failed", "cancelled");

        Http.Response limit = http.get("/actuator/durable/instances?limit=20000");
        assertThat(limit.status()).isEqualTo(400);
        assertThat(limit.json().path("error").asString()).isEqualTo("limit must be between 1 and 10000, was 20000");
        assertThat(limit.json().path("maxLimit").asInt()).isEqualTo(10_000);

        Http.Response notANumber = http.get("/actuator/durable/instances?limit=ten");
        assertThat(notANumber.status()).isEqualTo(400);
        assertThat(notANumber.json().path("error").asString())
                .isEqualTo("'ten' is not a whole number, as limit must be");

        Http.Response instant = http.get("/actuator/durable/instances?createdFrom=yesterday");
        assertThat(instant.status()).isEqualTo(400);
        assertThat(instant.json().path("error").asString())
                .isEqualTo("'yesterday' is not an instant, as createdFrom must be");
        assertThat(instant.json().path("format").asString())
                .isEqualTo("an ISO-8601 instant, e.g. 2026-11-25T10:15:30Z");

        Http.Response range = http.get("/actuator/durable/instances?createdFrom=2026-11-25T00:00:00Z"
                + "&createdBefore=2026-11-24T00:00:00Z");
        assertThat(range.status()).isEqualTo(400);
        assertThat(range.json().path("error").asString()).startsWith("createdFrom (2026-11-25T00:00:00Z) must be"
                + " before createdBefore");

        Http.Response order = http.get("/actuator/durable/instances?order=sideways");
        assertThat(order.status()).isEqualTo(400);
        assertThat(strings(order.json().path("orders"))).containsExactly("oldest_first", "newest_first");

        Http.Response noKey = http.get("/actuator/durable/holder");
        assertThat(noKey.status()).isEqualTo(400);
        assertThat(noKey.json().path("error").asString())
                .isEqualTo("Name the unique key, e.g. /actuator/durable/holder?uniqueKey=order:42");
    }

    @Test
    void theHolderOfAUniqueKeyIsSignalledAndCancelledByTheKey() throws Exception {
        long signalled = park("dee", StartOptions.defaults().uniqueKey("order-s"));
        long cancelled = park("eve", StartOptions.defaults().uniqueKey("order-t"));
        Http http = new Http(port);

        Http.Response go = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"order-s\",\"action\":\"signal\",\"signal\":\"go\","
                        + "\"payload\":\"{\\\"by\\\":\\\"ops\\\"}\","
                        + "\"dedupKey\":\"evt-1\"}");
        assertThat(go.status()).isEqualTo(200);
        assertThat(go.json().path("id").asLong()).isEqualTo(signalled);
        assertThat(go.json().path("delivery").asString()).isEqualTo("delivered");
        assertThat(go.json().path("wokeInstance").asBoolean()).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(signalled).equals("done"));
        // Ended, it let go of its key: no holder any more.
        Http.Response late = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"order-s\",\"action\":\"signal\",\"signal\":\"go\",\"dedupKey\":\"evt-2\"}");
        assertThat(late.status()).isEqualTo(404);
        assertThat(late.json().path("error").asString()).isEqualTo("No instance holds unique key 'order-s'");

        Http.Response cancel = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"order-t\",\"action\":\"cancel\",\"reason\":\"customer withdrew\"}");
        assertThat(cancel.status()).isEqualTo(200);
        assertThat(cancel.json().path("id").asLong()).isEqualTo(cancelled);
        assertThat(cancel.json().path("result").asString()).isEqualTo("cancelled");
        assertThat(cancel.json().path("statusBefore").asString()).isEqualTo("awaiting_signal");
        assertThat(TestDatabase.status(cancelled)).isEqualTo("cancelled");
        assertThat(http.post("/actuator/durable/holder", "{\"uniqueKey\":\"order-t\",\"action\":\"cancel\"}")
                .status()).isEqualTo(404);
    }

    /**
     * The holder's machine declares its signals: a misspelt name and a payload that does not bind are answered 400
     * with the reason and what the machine accepts, and nothing is stored (docs/DESIGN.md, "Declared signals").
     */
    @Test
    void aSignalTheHoldersMachineDoesNotDeclareOrWhosePayloadDoesNotBindIsABadRequestThatStoresNothing()
            throws Exception {
        long id = durable.start(Payments.class, new Payments.Bill("gil", 2599),
                StartOptions.defaults().uniqueKey("bill-g")).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        Http http = new Http(port);

        Http.Response misspelt = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"bill-g\",\"action\":\"signal\",\"signal\":\"payd\","
                        + "\"payload\":\"{\\\"paymentId\\\":\\\"PAY-1\\\",\\\"cents\\\":2599}\"}");
        assertThat(misspelt.status()).isEqualTo(400);
        assertThat(misspelt.json().path("error").asString()).isEqualTo("Signal 'payd' to instance " + id
                + " refused: machine payments v1 does not declare it; it accepts paid ("
                + Payments.Payment.class.getName() + "). Nothing was stored.");
        assertThat(misspelt.json().path("signals").path("paid").asString())
                .isEqualTo(Payments.Payment.class.getName());

        Http.Response lossy = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"bill-g\",\"action\":\"signal\",\"signal\":\"paid\","
                        + "\"payload\":\"{\\\"paymentId\\\":\\\"PAY-1\\\",\\\"cents\\\":2599,"
                        + "\\\"amount\\\":25.99}\",\"dedupKey\":\"evt-1\"}");
        assertThat(lossy.status()).isEqualTo(400);
        assertThat(lossy.json().path("error").asString()).isEqualTo("Signal 'paid' to instance " + id
                + " refused: machine payments v1 declares its payload as " + Payments.Payment.class.getName()
                + ", and reading this one as it would drop [$.amount], which it has no place for. Nothing was"
                + " stored.");
        Http.Response unreadable = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"bill-g\",\"action\":\"signal\",\"signal\":\"paid\","
                        + "\"payload\":\"{\\\"paymentId\\\":\\\"PAY-1\\\",\\\"amount\\\":25.99}\","
                        + "\"dedupKey\":\"evt-1\"}");
        assertThat(unreadable.status()).isEqualTo(400);
        assertThat(unreadable.json().path("error").asString()).startsWith("Signal 'paid' to instance " + id
                + " refused: machine payments v1 declares its payload as " + Payments.Payment.class.getName()
                + ", and reading this one as it fails: Cannot read JSON as " + Payments.Payment.class.getName()
                + " (at $.cents): ");
        assertThat(TestDatabase.DATABASE.signals(id)).isEmpty();
        assertThat(TestDatabase.status(id)).isEqualTo("awaiting_signal");

        // The same dedup key, now with a payload that binds: the refusal stored nothing, so it is delivered.
        Http.Response paid = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"bill-g\",\"action\":\"signal\",\"signal\":\"paid\","
                        + "\"payload\":\"{\\\"paymentId\\\":\\\"PAY-1\\\",\\\"cents\\\":2599}\","
                        + "\"dedupKey\":\"evt-1\"}");
        assertThat(paid.status()).isEqualTo(200);
        assertThat(paid.json().path("delivery").asString()).isEqualTo("delivered");
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(durable.find(id).orElseThrow().result(Payments.Payment.class))
                .isEqualTo(new Payments.Payment("PAY-1", 2599));
    }

    @Test
    void aHolderThatEndedIsAConflictAndABadHolderRequestIsAnsweredWithTheProblem() throws Exception {
        long kept = durable.start(Workflow.class, new Workflow.State("fay", 0), StartOptions.defaults()
                .uniqueKey("order-k").uniqueScope(EnumSet.allOf(InstanceStatus.class))).id();
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = 'done'"
                + " WHERE id = ?", kept);
        Http http = new Http(port);

        Http.Response cancel = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"order-k\",\"action\":\"cancel\"}");
        assertThat(cancel.status()).isEqualTo(409);
        assertThat(cancel.json().path("error").asString()).isEqualTo("Instance " + kept
                + ", the holder of unique key 'order-k', is done; only an unfinished instance can be cancelled");
        Http.Response signal = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"order-k\",\"action\":\"signal\",\"signal\":\"go\"}");
        assertThat(signal.status()).isEqualTo(409);
        assertThat(signal.json().path("error").asString()).isEqualTo("Instance " + kept
                + ", the holder of unique key 'order-k', has ended; the signal was not stored");
        assertThat(TestDatabase.DATABASE.signals(kept)).isEmpty();

        Http.Response action = http.post("/actuator/durable/holder", "{\"uniqueKey\":\"order-k\",\"action\":\"stop\"}");
        assertThat(action.status()).isEqualTo(400);
        assertThat(action.json().path("error").asString())
                .isEqualTo("Unknown action 'stop' for the holder of a unique key");
        assertThat(strings(action.json().path("actions"))).containsExactly("signal", "cancel");
        Http.Response noName = http.post("/actuator/durable/holder",
                "{\"uniqueKey\":\"order-k\",\"action\":\"signal\"}");
        assertThat(noName.status()).isEqualTo(400);
        assertThat(noName.json().path("error").asString()).startsWith("Name the signal, e.g. ");
        Http.Response noKey = http.post("/actuator/durable/holder", "{\"action\":\"cancel\"}");
        assertThat(noKey.status()).isEqualTo(400);
        assertThat(noKey.json().path("error").asString())
                .isEqualTo("Name the unique key, e.g. {\"uniqueKey\":\"order:42\",\"action\":\"cancel\"}");
        assertThat(TestDatabase.status(kept)).isEqualTo("done");
    }

    @Test
    void aBulkCancelAndABulkRetryActOnOnePageOfTheFilterAtATime() throws Exception {
        List<Long> batch = Stream.of("gus", "hal", "ida")
                .map(name -> park(name, StartOptions.defaults().correlationKey("batch-1"))).toList();
        long failed = park("stop-jon", StartOptions.defaults());
        durable.signal(failed, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(failed).equals("failed"));
        Http http = new Http(port);

        JsonNode first = http.post("/actuator/durable/instances", "{\"action\":\"cancel\",\"reason\":\"recall\","
                + "\"filter\":\"correlationKey=batch-1&limit=2\"}").json();
        assertThat(first.path("selected").asInt()).isEqualTo(2);
        assertThat(first.path("changed").asInt()).isEqualTo(2);
        assertThat(first.path("more").asBoolean()).isTrue();
        assertThat(first.path("lastId").asLong()).isEqualTo(batch.get(1));
        JsonNode second = http.post("/actuator/durable/instances", "{\"action\":\"cancel\",\"reason\":\"recall\","
                + "\"filter\":\"correlationKey=batch-1&limit=2&afterId=" + batch.get(1) + "\"}").json();
        assertThat(second.path("selected").asInt()).isOne();
        assertThat(second.path("more").asBoolean()).isFalse();
        assertThat(batch).allSatisfy(id -> assertThat(TestDatabase.status(id)).isEqualTo("cancelled"));
        assertThat(durable.find(batch.get(0)).orElseThrow().lastError()).isEqualTo("recall");

        JsonNode retried = http.post("/actuator/durable/instances",
                "{\"action\":\"retry\",\"filter\":\"status=failed&errorContains=ASKED%20TO%20STOP\"}")
                .json();
        assertThat(retried.path("action").asString()).isEqualTo("retry");
        assertThat(retried.path("changed").asInt()).isOne();
        assertThat(retried.path("skipped").asInt()).isZero();
        assertThat(retried.path("lastId").asLong()).isEqualTo(failed);
        await().atMost(Duration.ofSeconds(20)).until(() -> Workflow.runs.stream()
                .filter(run -> run.equals("stop-jon:finish:0")).count() == 2);
    }

    @Test
    void aBadBulkRequestIsAnsweredWithTheProblemAndChangesNothing() throws Exception {
        long parked = park("kim", StartOptions.defaults());
        Http http = new Http(port);

        Http.Response noFilter = http.post("/actuator/durable/instances", "{\"action\":\"cancel\"}");
        assertThat(noFilter.status()).isEqualTo(400);
        assertThat(noFilter.json().path("error").asString()).startsWith("Name the filter, e.g. ");
        Http.Response misspelt = http.post("/actuator/durable/instances",
                "{\"action\":\"cancel\",\"filter\":\"machine=workflow&stauts=runnable\"}");
        assertThat(misspelt.status()).isEqualTo(400);
        assertThat(misspelt.json().path("error").asString()).isEqualTo("Unknown filter 'stauts'");
        assertThat(strings(misspelt.json().path("filters"))).contains("machine", "status", "uniqueKey", "limit");
        Http.Response tooMany = http.post("/actuator/durable/instances",
                "{\"action\":\"cancel\",\"filter\":\"limit=5000\"}");
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.json().path("error").asString())
                .isEqualTo("A bulk cancel acts on at most 1000 instances per call, and the filter's limit is 5000");
        assertThat(tooMany.json().path("maxLimit").asInt()).isEqualTo(1000);
        Http.Response ended = http.post("/actuator/durable/instances",
                "{\"action\":\"cancel\",\"filter\":\"status=done\"}");
        assertThat(ended.status()).isEqualTo(400);
        assertThat(ended.json().path("error").asString()).isEqualTo("A bulk cancel acts on [runnable, executing,"
                + " awaiting_signal, suspended] instances only, and the query selects [done]; nothing was done");
        Http.Response badStatus = http.post("/actuator/durable/instances",
                "{\"action\":\"retry\",\"filter\":\"status=stuck\"}");
        assertThat(badStatus.status()).isEqualTo(400);
        assertThat(badStatus.json().path("error").asString()).isEqualTo("Unknown instance status 'stuck'");
        Http.Response action = http.post("/actuator/durable/instances", "{\"action\":\"delete\",\"filter\":\"\"}");
        assertThat(action.status()).isEqualTo(400);
        assertThat(strings(action.json().path("actions"))).containsExactly("retry", "cancel");

        assertThat(TestDatabase.status(parked)).isEqualTo("awaiting_signal");
    }

    /** A workflow instance named {@code name}, once it waits for its "go" signal. */
    private long park(String name, StartOptions options) {
        long id = durable.start(Workflow.class, new Workflow.State(name, 0), options).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        return id;
    }

    private static List<Long> ids(JsonNode page) {
        return page.path("instances").valueStream().map(instance -> instance.path("id").asLong()).toList();
    }

    private static List<String> strings(JsonNode array) {
        return array.valueStream().map(JsonNode::asString).toList();
    }
}
