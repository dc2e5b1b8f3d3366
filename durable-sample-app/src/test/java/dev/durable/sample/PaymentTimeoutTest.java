package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * An order whose payment does not arrive within {@code sample.payment.timeout} is cancelled, its stock released; a
 * payment sent afterwards is refused. One paid in time ships as usual.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "durable.poll-interval=200ms",
        "durable.idle-poll-interval=200ms",
        "sample.carrier.failure-rate=0",
        "sample.payment.timeout=2s"})
class PaymentTimeoutTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SampleDatabase.use(registry, "durable_sample_timeout");
    }

    @Value("${local.server.port}")
    int port;

    @Test
    void anOrderNotPaidInTimeIsCancelledAndALatePaymentIsRefused() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long unpaid = http.placeOrder(1);
        long paid = http.placeOrder(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> http.awaitsPayment(paid));
        assertThat(http.pay(paid, "evt-" + paid).status()).isEqualTo(202);

        await().atMost(Duration.ofSeconds(15)).until(() -> http.status(unpaid).equals("done"));
        JsonNode cancelled = http.order(unpaid).json();
        assertThat(cancelled.path("step").asString()).isEqualTo("cancel");
        assertThat(cancelled.path("result").path("reason").asString()).isEqualTo("no payment within PT2S");
        long line = cancelled.path("lines").get(0).path("id").asLong();
        assertThat(cancelled.path("result").path("reservation").asString()).isEqualTo("RES-" + line + "-SKU-42x2");
        assertThat(http.pay(unpaid, "evt-late").status()).as("a payment after the cancellation").isEqualTo(409);

        await().atMost(Duration.ofSeconds(15)).until(() -> http.status(paid).equals("done"));
        assertThat(http.order(paid).json().path("result").path("paymentId").asString()).isEqualTo("PAY-" + paid);
    }
}
