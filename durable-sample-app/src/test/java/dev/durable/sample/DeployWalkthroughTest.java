package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InFlightReport;
import dev.durable.InstanceStatus;
import dev.durable.SignalResult;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineRegistry;
import dev.durable.nextrelease.NextRelease;
import dev.durable.nextrelease.order.OrderWorkflow;
import dev.durable.nextrelease.order.OrderWorkflowAsItIs;
import dev.durable.nextrelease.order.OrderWorkflowUpcasting;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import dev.durable.sample.order.Payment;
import dev.durable.test.DeployAssertions;
import dev.durable.test.postgres.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sample's README, "Deploy a changed order state": orders wait for their payment under the sample (the release
 * running now, its machine "order" v2 storing {@code Order.reservation}); the next release renames the property
 * {@code reservationId}. Each release is a real application on the tests' PostgreSQL, one after the other on the same
 * schema: the sample itself ({@link SampleApplication}), then the next release ({@link NextRelease}: the changed
 * workflow and state live in test sources, {@code dev.durable.nextrelease}, so that the sample's own code stays the
 * release running now and its other tests never find a second machine "order").
 *
 * <p>The in-flight report is exported from the running sample ({@code GET /actuator/durable/in-flight}) to a file; the
 * next release deployed as it is cannot run the orders, says the check against the file and the database
 * ({@code BINDS_LOSSILY}, naming {@code $.reservation}), and running it anyway suspends them with their stored states
 * untouched; with the upcaster (version 3) the checks pass, and the orders, paid or retried, complete with their
 * reservation carried over.
 */
@ExtendWith(OutputCaptureExtension.class)
class DeployWalkthroughTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path work;

    @Test
    void theRenameIsReportedLossyFromTheFileAndTheDatabaseUntilItsUpcasterIsDeployedThenTheOrdersComplete(
            CapturedOutput output) throws Exception {
        String[] database = database("durable_sample_walk");
        Path inFlight = work.resolve("in-flight.json");
        Map<Long, String> reservations;

        // (a) The sample places orders that reach await-payment; (b) its in-flight report goes to a file.
        try (ConfigurableApplicationContext sample = startSample(database)) {
            SampleHttp http = new SampleHttp(port(sample));
            reservations = placeOrdersAwaitingPayment(http);
            Files.writeString(inFlight, http.text("/actuator/durable/in-flight"));
        }
        InFlightReport report = InFlightReport.read(inFlight);
        assertThat(report.groups()).singleElement().satisfies(group -> {
            assertThat(group.describe()).isEqualTo("order v2 at step 'await-payment' (awaiting_signal)");
            assertThat(group.count()).isEqualTo(reservations.size());
            assertThat(group.shapes()).flatExtracting(InFlightReport.Shape::paths).contains("$.reservation: string");
        });
        System.out.println("The exported in-flight file:\n" + Files.readString(inFlight));

        // (c) The next release as it is: the file and the database both say it would drop $.reservation.
        int mark = output.length();
        try (ConfigurableApplicationContext asItIs = NextRelease.start(OrderWorkflowAsItIs.class, database)) {
            assertThatThrownBy(() -> DeployAssertions.assertCanRun(machines(asItIs), codec(asItIs), inFlight))
                    .isInstanceOf(AssertionError.class)
                    .satisfies(error -> System.out.println("DeployAssertions says:\n" + error.getMessage()))
                    .hasMessageContaining("2 instances of machine order v2 at step 'await-payment' (awaiting_signal)"
                            + " cannot run on this code: BINDS_LOSSILY (reading the stored state as "
                            + dev.durable.nextrelease.order.Order.class.getName() + " would drop [$.reservation],"
                            + " which it has no place for)");
            assertLossy(engine(asItIs).checkDeploy());
            JsonNode answer = new SampleHttp(port(asItIs)).get("/actuator/durable/deploy-check").json();
            System.out.println("GET /actuator/durable/deploy-check answers:\n" + answer);
            assertThat(answer.path("passed").asBoolean()).isFalse();
            assertThat(answer.path("problems").get(0).path("verdict").asString()).isEqualTo("binds_lossily");
            assertThat(answer.path("problems").get(0).path("droppedPaths").get(0).asString())
                    .isEqualTo("$.reservation");
        }
        assertThat(output.toString().substring(mark)).contains("WARN").contains("Deploy check: 2 instances of machine"
                + " order v2 at step 'await-payment' (awaiting_signal) cannot run on this code: BINDS_LOSSILY");

        // (d) With the upcaster and version 3 the checks pass; (e) the orders are paid and complete on it alone.
        mark = output.length();
        try (ConfigurableApplicationContext upcasting = NextRelease.start(OrderWorkflowUpcasting.class, database)) {
            DeployAssertions.assertCanRun(machines(upcasting), codec(upcasting), inFlight);
            DeployCheck check = engine(upcasting).checkDeploy();
            assertThat(check.passed()).isTrue();
            assertThat(check.findings()).singleElement().satisfies(finding -> {
                assertThat(finding.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.RUNNABLE);
                assertThat(finding.verdict().runsAsVersion()).isEqualTo(3);
                assertThat(finding.verdict().reason()).isEqualTo("upcast from v2 to v3");
            });
            JsonNode answer = new SampleHttp(port(upcasting)).get("/actuator/durable/deploy-check").json();
            System.out.println("GET /actuator/durable/deploy-check answers:\n" + answer);
            assertThat(answer.path("passed").asBoolean()).isTrue();
            assertThat(output.toString().substring(mark)).doesNotContain("Deploy check:");

            DurableClient durable = upcasting.getBean(DurableClient.class);
            pay(durable, reservations.keySet());
            assertCompletedWithTheirReservations(durable, reservations);
        }
    }

    @Test
    void runWithoutTheUpcasterThePaidOrdersAreSuspendedAsStoredAndResumedOnceItIsDeployed(CapturedOutput output)
            throws Exception {
        String[] database = database("durable_sample_walk_suspend");
        Map<Long, String> reservations;
        Map<Long, String> stored = new LinkedHashMap<>();
        try (ConfigurableApplicationContext sample = startSample(database)) {
            reservations = placeOrdersAwaitingPayment(new SampleHttp(port(sample)));
            DurableClient durable = sample.getBean(DurableClient.class);
            reservations.keySet().forEach(id -> stored.put(id, durable.find(id).orElseThrow().stateJson()));
        }

        int mark = output.length();
        try (ConfigurableApplicationContext asItIs = NextRelease.start(OrderWorkflowAsItIs.class, database)) {
            DurableClient durable = asItIs.getBean(DurableClient.class);
            pay(durable, reservations.keySet());
            await().atMost(Duration.ofSeconds(30)).until(() -> reservations.keySet().stream()
                    .allMatch(id -> durable.find(id).orElseThrow().status() == InstanceStatus.SUSPENDED));
            for (long id : reservations.keySet()) {
                DurableInstance order = durable.find(id).orElseThrow();
                assertThat(order.stateJson()).as("the stored state of order %s", id).isEqualTo(stored.get(id));
                assertThat(order.version()).isEqualTo(2);
                assertThat(order.step()).isEqualTo("await-payment");
                assertThat(output.toString().substring(mark)).contains("Instance " + id + " (order v2) suspended at"
                        + " step 'await-payment': The stored state of order v2 would lose [$.reservation] when read as "
                        + dev.durable.nextrelease.order.Order.class.getName());
            }
        }

        try (ConfigurableApplicationContext upcasting = NextRelease.start(OrderWorkflowUpcasting.class, database)) {
            DurableClient durable = upcasting.getBean(DurableClient.class);
            assertThat(engine(upcasting).checkDeploy().passed()).isTrue();
            // The actuator's bulk retry (DurableClient.bulkRetry) of every suspended order.
            SampleHttp.Response retried = new SampleHttp(port(upcasting)).post("/actuator/durable/instances",
                    "{\"action\":\"retry\",\"filter\":\"machine=order&status=suspended&limit=500\"}");
            System.out.println("POST /actuator/durable/instances answers: " + retried.json());
            assertThat(retried.status()).isEqualTo(200);
            assertThat(retried.json().path("changed").asInt()).isEqualTo(reservations.size());
            assertCompletedWithTheirReservations(durable, reservations);
        }
    }

    /** Two orders, of one line and of two, waiting for their payment: their reservations by id. */
    private static Map<Long, String> placeOrdersAwaitingPayment(SampleHttp http) throws Exception {
        long one = http.placeOrder(7);
        long two = http.post("/orders", """
                {"customerId": 8, "lines": [{"sku": "BOOK", "quantity": 1}, {"sku": "PEN", "quantity": 3}],
                 "amountCents": 2599}""").json().path("id").asLong();
        await().atMost(Duration.ofSeconds(30)).until(() -> http.awaitsPayment(one) && http.awaitsPayment(two));
        Map<Long, String> reservations = new LinkedHashMap<>();
        for (long id : List.of(one, two)) {
            reservations.put(id, http.order(id).json().path("order").path("reservation").asString());
        }
        assertThat(reservations.get(one)).matches("RES-\\d+-SKU-42x2");
        assertThat(reservations.get(two)).matches("RES-\\d+-BOOKx1,RES-\\d+-PENx3");
        return reservations;
    }

    /** Pays each order as the sample's webhook does. */
    private static void pay(DurableClient durable, Iterable<Long> orders) {
        for (long id : orders) {
            SignalResult paid = durable.signal(id, OrderWorkflow.PAYMENT, new Payment("PAY-" + id, 2599), "evt-" + id);
            assertThat(paid.delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
        }
    }

    /** Every order done on version 3, its reservation in {@code reservationId} and in the shipment: nothing lost. */
    private static void assertCompletedWithTheirReservations(DurableClient durable, Map<Long, String> reservations) {
        await().atMost(Duration.ofSeconds(30)).until(() -> reservations.keySet().stream()
                .allMatch(id -> durable.find(id).orElseThrow().status() == InstanceStatus.DONE));
        reservations.forEach((id, reservation) -> {
            DurableInstance order = durable.find(id).orElseThrow();
            assertThat(order.version()).isEqualTo(3);
            JsonNode state = JSON.readTree(order.stateJson());
            assertThat(state.path("reservationId").asString()).isEqualTo(reservation);
            assertThat(state.has("reservation")).isFalse();
            assertThat(state.path("paymentId").asString()).isEqualTo("PAY-" + id);
            JsonNode shipment = JSON.readTree(order.resultJson());
            assertThat(shipment.path("reservation").asString()).isEqualTo(reservation);
            assertThat(shipment.path("tracking").asString()).startsWith("TRK-" + id + "-");
        });
    }

    private static void assertLossy(DeployCheck check) {
        assertThat(check.passed()).isFalse();
        assertThat(check.problems()).singleElement().satisfies(finding -> {
            assertThat(finding.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.BINDS_LOSSILY);
            assertThat(finding.verdict().droppedPaths()).containsExactly("$.reservation");
        });
    }

    /** The arguments of every release's start: the tests' PostgreSQL and a schema of this test's, dropped first. */
    private static String[] database(String schema) {
        TestPostgres postgres = TestPostgres.get();
        postgres.dropSchema(schema);
        return new String[] {"--spring.datasource.url=" + postgres.jdbcUrl(),
                "--spring.datasource.username=" + postgres.username(),
                "--spring.datasource.password=" + postgres.password(), "--durable.schema=" + schema,
                "--server.port=0", "--durable.poll-interval=200ms", "--durable.idle-poll-interval=200ms",
                "--sample.carrier.failure-rate=0", "--spring.main.banner-mode=off"};
    }

    private static ConfigurableApplicationContext startSample(String[] database) {
        return new SpringApplicationBuilder(SampleApplication.class).run(database);
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getRequiredProperty("local.server.port"));
    }

    private static MachineRegistry machines(ConfigurableApplicationContext app) {
        return app.getBean(MachineRegistry.class);
    }

    private static JsonCodec codec(ConfigurableApplicationContext app) {
        return new JacksonJsonCodec(app.getBean(JsonMapper.class));
    }

    private static DurableEngine engine(ConfigurableApplicationContext app) {
        return app.getBean(DurableEngine.class);
    }
}
