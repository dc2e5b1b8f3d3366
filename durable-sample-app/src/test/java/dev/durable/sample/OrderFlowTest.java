package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.runtime.DurableEngine;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/** The sample's order workflow through its REST API, on the tests' PostgreSQL, with a very flaky carrier. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "durable.poll-interval=200ms",
        "durable.idle-poll-interval=200ms",
        "sample.carrier.failure-rate=0.5",
        "durable.retry.delay=10ms",
        "durable.retry.max-attempts=30"})
class OrderFlowTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SampleDatabase.use(registry, "durable_sample");
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    DurableEngine engine;

    @Test
    void placedOrderWaitsForItsPaymentThenShipsAndCompletes() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long id = http.placeOrder(7);

        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(id));
        JsonNode waiting = http.order(id).json();
        assertThat(waiting.path("step").asString()).isEqualTo("await-payment");
        // Its one line was reserved by a child instance.
        long line = waiting.path("lines").get(0).path("id").asLong();
        assertThat(waiting.path("lines").get(0).path("status").asString()).isEqualTo("done");
        assertThat(waiting.path("order").path("reservation").asString()).isEqualTo("RES-" + line + "-SKU-42x2");

        // Held, so the webhook's redelivery arrives while the payment is still in the order's inbox.
        engine.pause("orders");
        SampleHttp.Response paid = http.pay(id, "evt-" + id);
        assertThat(paid.status()).isEqualTo(202);
        assertThat(paid.json().path("delivery").asString()).isEqualTo("delivered");
        assertThat(paid.json().path("wokeOrder").asBoolean()).isTrue();
        assertThat(http.pay(id, "evt-" + id).json().path("delivery").asString()).isEqualTo("deduplicated");
        engine.resume("orders");

        await().atMost(Duration.ofSeconds(30)).until(() -> http.status(id).equals("done"));
        JsonNode done = http.order(id).json();
        assertThat(done.path("result").path("tracking").asString()).isEqualTo("TRK-" + id + "-7");
        assertThat(done.path("result").path("paymentId").asString()).isEqualTo("PAY-" + id);
        assertThat(http.pay(id, "evt-late").status()).isEqualTo(409);
        assertThat(http.pay(987654321, "evt-x").status()).isEqualTo(404);
    }

    /** Prometheus scrapes the sample (issue 27): durable's meters are there, in its names, beside Spring's. */
    @Test
    void prometheusScrapesDurablesMeters() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long id = http.placeOrder(3);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(id));

        String text = http.text("/actuator/prometheus"); // fails unless it answers 200
        assertThat(text).contains("# TYPE durable_claims gauge")
                .containsPattern("durable_queue_concurrency\\{[^}]*queue=\"orders\"")
                .containsPattern("durable_instances\\{[^}]*machine=\"order\"")
                .contains("jvm_memory_used_bytes");
    }

    /** The sample serves the dashboard (docs/DESIGN.md, "Dashboard"): its page, and its overview of the orders. */
    @Test
    void theDashboardShowsTheOrdersQueue() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long id = http.placeOrder(4);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(id));

        assertThat(http.text("/durable/index.html")).contains("<script src=\"dashboard.js\" defer></script>");
        JsonNode overview = http.get("/durable/api/overview").json();
        assertThat(overview.path("queues").valueStream().map(queue -> queue.path("name").asString()))
                .contains("orders");
        assertThat(http.get("/durable/api/session").json().path("canWrite").asBoolean()).isTrue();
    }

    /**
     * The order declares the one signal it takes (docs/DESIGN.md, "Declared signals"): the webhook of an event it does
     * not take, or of a payment that does not read whole as a Payment, answers 400 with the reason, and nothing is
     * stored; the order still waits, and pays when a payment that reads arrives.
     */
    @Test
    void aWebhookOfAnEventTheOrderDoesNotTakeOrOfAPaymentThatDoesNotReadIsRefusedAndStoresNothing() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long id = http.placeOrder(10);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(id));

        SampleHttp.Response refund = http.post("/orders/" + id + "/payment",
                "{\"eventId\":\"evt-r\",\"event\":\"refund\",\"paymentId\":\"PAY-1\",\"amountCents\":2599}");
        assertThat(refund.status()).isEqualTo(400);
        assertThat(refund.json().path("delivery").asString()).isEqualTo("refused_undeclared_signal");
        assertThat(refund.json().path("error").asString()).isEqualTo("Signal 'refund' to instance " + id
                + " refused: machine order v2 does not declare it; it accepts payment"
                + " (dev.durable.sample.order.Payment). Nothing was stored.");
        assertThat(refund.json().path("accepts").path("payment").asString())
                .isEqualTo("dev.durable.sample.order.Payment");

        SampleHttp.Response currency = http.post("/orders/" + id + "/payment",
                "{\"eventId\":\"evt-e\",\"paymentId\":\"PAY-1\",\"amountCents\":2599,\"currency\":\"EUR\"}");
        assertThat(currency.status()).isEqualTo(400);
        assertThat(currency.json().path("delivery").asString()).isEqualTo("refused_wrong_payload");
        assertThat(currency.json().path("error").asString()).isEqualTo("Signal 'payment' to instance " + id
                + " refused: machine order v2 declares its payload as dev.durable.sample.order.Payment, and reading"
                + " this one as it would drop [$.currency], which it has no place for. Nothing was stored.");

        SampleHttp.Response euros = http.post("/orders/" + id + "/payment",
                "{\"eventId\":\"evt-w\",\"paymentId\":\"PAY-1\",\"amount\":25.99}");
        assertThat(euros.status()).isEqualTo(400);
        assertThat(euros.json().path("error").asString()).startsWith("Signal 'payment' to instance " + id
                + " refused: machine order v2 declares its payload as dev.durable.sample.order.Payment, and reading"
                + " this one as it fails: Cannot read JSON as dev.durable.sample.order.Payment (at $.amountCents): ");

        assertThat(engine.client().inFlight().groups()).filteredOn(group -> group.machine().equals("order"))
                .allSatisfy(group -> assertThat(group.pendingSignals()).as("signals stored").isEmpty());
        assertThat(http.awaitsPayment(id)).isTrue();
        assertThat(http.pay(id, "evt-e").status()).as("the refused event's id stored nothing").isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> http.status(id).equals("done"));
    }

    @Test
    void anOrderOfSeveralLinesReservesEachInAChildAndFailsWhenOneIsSoldOut() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long twoLines = http.post("/orders", """
                {"customerId": 8, "lines": [{"sku": "BOOK", "quantity": 1}, {"sku": "PEN", "quantity": 3}],
                 "amountCents": 1200}""").json().path("id").asLong();
        long soldOut = http.post("/orders", """
                {"customerId": 9, "lines": [{"sku": "BOOK", "quantity": 1}, {"sku": "SOLD-OUT-LAMP", "quantity": 1}],
                 "amountCents": 1200}""").json().path("id").asLong();

        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(twoLines)
                && http.status(soldOut).equals("failed"));
        JsonNode waiting = http.order(twoLines).json();
        JsonNode lines = waiting.path("lines");
        assertThat(lines.size()).isEqualTo(2);
        assertThat(waiting.path("order").path("reservation").asString()).isEqualTo("RES-" + lines.get(0).path("id")
                .asLong() + "-BOOKx1,RES-" + lines.get(1).path("id").asLong() + "-PENx3");
        JsonNode failed = http.order(soldOut).json();
        assertThat(failed.path("lines").get(1).path("status").asString()).isEqualTo("failed");
        assertThat(failed.path("lastError").asString()).startsWith("lines not reserved: ")
                .contains("out of stock: SOLD-OUT-LAMP");
        assertThat(http.post("/orders", "{\"customerId\": 1, \"amountCents\": 5}").status()).isEqualTo(400);
    }

    @Test
    void anOrderIsCancelledOverRestOnceAndAnEndedOneIsAConflict() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long id = http.placeOrder(11);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(id));

        SampleHttp.Response cancelled = http.post("/orders/" + id + "/cancel", "{\"reason\": \"changed my mind\"}");
        SampleHttp.Response again = http.post("/orders/" + id + "/cancel", "");

        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().path("result").asString()).isEqualTo("cancelled");
        assertThat(cancelled.json().path("statusBefore").asString()).isEqualTo("awaiting_signal");
        assertThat(again.json().path("result").asString()).isEqualTo("already_cancelled");
        JsonNode order = http.order(id).json();
        assertThat(order.path("status").asString()).isEqualTo("cancelled");
        assertThat(order.path("lastError").asString()).isEqualTo("changed my mind");
        assertThat(http.pay(id, "evt-after-cancel").status()).isEqualTo(409);
        assertThat(http.post("/orders/987654321/cancel", "").status()).isEqualTo(404);
        // Its history ends with the cancel.
        JsonNode history = http.get("/actuator/durable/" + id).json().path("history");
        assertThat(history.get(history.size() - 1).path("event").asString()).isEqualTo("cancel");
    }

    @Test
    void loadGeneratorStartsManyOrdersInOneCall() throws Exception {
        SampleHttp http = new SampleHttp(port);
        SampleHttp.Response load = http.post("/load?orders=25", "");
        assertThat(load.status()).isEqualTo(200);
        assertThat(load.json().path("started").asInt()).isEqualTo(25);
        long last = load.json().path("lastId").asLong();
        await().atMost(Duration.ofSeconds(30)).until(() -> http.awaitsPayment(last));

        JsonNode durable = http.get("/actuator/durable").json();
        assertThat(durable.path("queues").path("orders").path("counts").path("awaiting_signal").asLong())
                .isGreaterThanOrEqualTo(1);
        assertThat(http.get("/actuator/health").json().path("components").path("durable").path("status")
                .asString()).isEqualTo("UP");
    }
}
