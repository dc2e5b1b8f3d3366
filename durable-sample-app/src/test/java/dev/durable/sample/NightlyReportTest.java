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
 * The nightly report is a declared schedule: with {@code sample.report.cron} set to every second, report instances
 * run one per tick and count the orders; the schedule is listed in {@code /actuator/durable}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "durable.poll-interval=200ms",
        "durable.idle-poll-interval=200ms",
        "sample.carrier.failure-rate=0",
        "sample.report.cron=* * * * * *",
        "sample.report.zone=Europe/Berlin"})
class NightlyReportTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SampleDatabase.use(registry, "durable_sample_report");
    }

    @Value("${local.server.port}")
    int port;

    @Test
    void theReportScheduleStartsReportsThatCountTheOrders() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long order = http.placeOrder(7);
        await().atMost(Duration.ofSeconds(10)).until(() -> http.awaitsPayment(order));

        // Ticks may have fired before the order existed: wait for two reports, the newest made after the order.
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            JsonNode reports = http.get("/reports").json();
            return reports.size() >= 2 && reports.get(0).path("orders").path("awaiting_signal").asLong() == 1;
        });
        JsonNode latest = http.get("/reports").json().get(0);
        assertThat(latest.path("countedAt").asString()).isNotEmpty();
        assertThat(latest.path("orders").path("awaiting_signal").asLong()).isEqualTo(1);

        JsonNode schedule = http.get("/actuator/durable").json().path("schedules").get(0);
        assertThat(schedule.path("name").asString()).isEqualTo("nightly-report");
        assertThat(schedule.path("cron").asString()).isEqualTo("* * * * * *");
        assertThat(schedule.path("zone").asString()).isEqualTo("Europe/Berlin");
        assertThat(schedule.path("declared").asBoolean()).isTrue();
        assertThat(schedule.path("lastFiredAt").asString()).isNotEmpty();
    }
}
