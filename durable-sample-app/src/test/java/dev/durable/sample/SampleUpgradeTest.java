package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.StartOptions;
import dev.durable.firstrelease.FirstRelease;
import dev.durable.firstrelease.order.Order;
import dev.durable.firstrelease.order.OrderWorkflow;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import dev.durable.test.postgres.TestPostgres;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Pulling the new sample onto a database its first release ran: the orders version 1 left in flight (one product per
 * order, reserved by the order itself) run on the sample's version 2, upcast by its {@code @Upcast(fromVersion = 1)},
 * and complete. The first release is {@link FirstRelease} (its workflow in the test sources,
 * {@code dev.durable.firstrelease}); then the sample itself starts on the same schema.
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleUpgradeTest {

    private static final String SCHEMA = "durable_sample_upgrade";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void theFirstReleasesOrdersInFlightRunOnVersion2AndComplete(CapturedOutput output) throws Exception {
        String[] database = database();
        long paid;
        long unpaid;
        long notReserved;
        String paidReservation;
        String unpaidReservation;
        try (ConfigurableApplicationContext first = FirstRelease.start(database)) {
            DurableClient durable = first.getBean(DurableClient.class);
            paid = durable.start(OrderWorkflow.class, Order.placed(7, "SKU-42", 2, 2599)).id();
            unpaid = durable.start(OrderWorkflow.class, Order.placed(8, "BOOK", 1, 900)).id();
            // Placed, not reserved yet: it waits for a delay when the release changes.
            notReserved = durable.start(OrderWorkflow.class, Order.placed(9, "PEN", 3, 2599),
                    StartOptions.defaults().delay(Duration.ofHours(1))).id();
            await().atMost(Duration.ofSeconds(30)).until(() -> List.of(paid, unpaid).stream()
                    .allMatch(id -> durable.find(id).orElseThrow().step().equals("await-payment")
                            && durable.find(id).orElseThrow().status() == InstanceStatus.AWAITING_SIGNAL));
            paidReservation = reservation(durable.find(paid).orElseThrow());
            unpaidReservation = reservation(durable.find(unpaid).orElseThrow());
            assertThat(paidReservation).isEqualTo("RES-" + paid + "-SKU-42x2");
        }

        int mark = output.length();
        try (ConfigurableApplicationContext sample = new SpringApplicationBuilder(SampleApplication.class)
                .run(database)) {
            DurableClient durable = sample.getBean(DurableClient.class);
            JdbcTemplate jdbc = sample.getBean(JdbcTemplate.class);
            SampleHttp http = new SampleHttp(Integer.parseInt(sample.getEnvironment()
                    .getRequiredProperty("local.server.port")));
            for (long id : List.of(paid, unpaid, notReserved)) {
                assertThat(durable.find(id).orElseThrow().version()).as("order %s as stored", id).isEqualTo(1);
            }
            DeployCheck check = sample.getBean(DurableEngine.class).checkDeploy();
            assertThat(check.passed()).isTrue();
            assertThat(check.findings()).isNotEmpty().allSatisfy(finding -> {
                assertThat(finding.verdict().kind()).isEqualTo(DeployCheck.Verdict.Kind.RUNNABLE);
                assertThat(finding.verdict().reason()).isEqualTo("upcast from v1 to v2");
            });

            // The payment webhook pays the order of version 1; the other one's deadline passes; the delayed one's
            // delay ends.
            SampleHttp.Response payment = http.pay(paid, "evt-" + paid);
            assertThat(payment.json().path("delivery").asString()).isEqualTo("delivered");
            jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET deadline = now() WHERE id = ?", unpaid);
            jdbc.update("UPDATE " + SCHEMA + ".durable_instance SET eligible_at = now() WHERE id = ?", notReserved);

            await().atMost(Duration.ofSeconds(30)).until(() -> http.status(paid).equals("done")
                    && http.status(unpaid).equals("done") && http.awaitsPayment(notReserved));
            DurableInstance shipped = durable.find(paid).orElseThrow();
            assertThat(shipped.version()).isEqualTo(2);
            JsonNode state = JSON.readTree(shipped.stateJson());
            assertThat(state.has("sku")).isFalse();
            assertThat(state.path("lines").get(0).path("sku").asString()).isEqualTo("SKU-42");
            assertThat(state.path("lines").get(0).path("quantity").asInt()).isEqualTo(2);
            assertThat(JSON.readTree(shipped.resultJson()).path("reservation").asString()).isEqualTo(paidReservation);
            assertThat(JSON.readTree(shipped.resultJson()).path("paymentId").asString()).isEqualTo("PAY-" + paid);
            DurableInstance cancelled = durable.find(unpaid).orElseThrow();
            assertThat(cancelled.version()).isEqualTo(2);
            assertThat(JSON.readTree(cancelled.resultJson()).path("reservation").asString())
                    .isEqualTo(unpaidReservation);
            assertThat(cancelled.resultJson()).contains("no payment within");

            // The order placed under version 1 and reserved under version 2: one line, one child.
            assertThat(durable.children(notReserved)).singleElement().satisfies(line -> {
                assertThat(line.status()).isEqualTo(InstanceStatus.DONE);
                assertThat(line.result(String.class)).endsWith("-PENx3");
            });
            http.pay(notReserved, "evt-" + notReserved);
            await().atMost(Duration.ofSeconds(30)).until(() -> http.status(notReserved).equals("done"));
            assertThat(durable.find(notReserved).orElseThrow().version()).isEqualTo(2);
        }
        assertThat(output.toString().substring(mark)).doesNotContain("suspended at step", "stranded", "Deploy check:");
    }

    private static String reservation(DurableInstance order) {
        return JSON.readTree(order.stateJson()).path("reservation").asString();
    }

    /** The arguments of both releases' starts: the tests' PostgreSQL and this test's schema, dropped first. */
    private static String[] database() {
        TestPostgres postgres = TestPostgres.get();
        postgres.dropSchema(SCHEMA);
        return new String[] {"--spring.datasource.url=" + postgres.jdbcUrl(),
                "--spring.datasource.username=" + postgres.username(),
                "--spring.datasource.password=" + postgres.password(), "--durable.schema=" + SCHEMA,
                "--server.port=0", "--durable.poll-interval=200ms", "--durable.idle-poll-interval=200ms",
                "--sample.carrier.failure-rate=0", "--spring.main.banner-mode=off"};
    }
}
