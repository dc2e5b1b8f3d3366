package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.boot.test.DurableTest;
import dev.durable.test.DurableTestEngine;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * An order whose payment does not arrive within {@code sample.payment.timeout} (30 minutes, as configured) is
 * cancelled, its stock released; a payment sent afterwards is refused. One paid in time ships as usual. The test kit
 * ({@link DurableTest}) moves durable's time past the timeout: no real time passes, nothing is polled for.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "sample.carrier.failure-rate=0"})
@DurableTest
class PaymentTimeoutTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SampleDatabase.use(registry, "durable_sample_timeout");
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    DurableTestEngine durable;

    @Test
    void anOrderNotPaidInTimeIsCancelledAndALatePaymentIsRefused() throws Exception {
        long started = System.nanoTime();
        SampleHttp http = new SampleHttp(port);
        long unpaid = http.placeOrder(1);
        long paid = http.placeOrder(2);
        durable.runDue();
        assertThat(http.awaitsPayment(paid)).isTrue();
        assertThat(http.pay(paid, "evt-" + paid).status()).isEqualTo(202);
        durable.runDue();
        assertThat(http.status(unpaid)).as("before the timeout").isEqualTo("awaiting_signal");

        durable.advance(Duration.ofMinutes(31));

        assertThat(http.status(unpaid)).isEqualTo("done");
        JsonNode cancelled = http.order(unpaid).json();
        assertThat(cancelled.path("step").asString()).isEqualTo("cancel");
        assertThat(cancelled.path("result").path("reason").asString()).isEqualTo("no payment within PT30M");
        long line = cancelled.path("lines").get(0).path("id").asLong();
        assertThat(cancelled.path("result").path("reservation").asString()).isEqualTo("RES-" + line + "-SKU-42x2");
        assertThat(http.pay(unpaid, "evt-late").status()).as("a payment after the cancellation").isEqualTo(409);

        assertThat(http.status(paid)).isEqualTo("done");
        assertThat(http.order(paid).json().path("result").path("paymentId").asString()).isEqualTo("PAY-" + paid);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("30 minutes of durable time")
                .isLessThan(Duration.ofSeconds(5));
    }
}
