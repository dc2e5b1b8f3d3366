package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The nightly report is a declared schedule: with {@code sample.report.cron} set to every second, report instances
 * run one per tick and count the orders, and only the orders: their lines, children on the same queue, are not
 * counted. The schedule is listed in {@code /actuator/durable}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "durable.poll-interval=200ms",
        "durable.idle-poll-interval=200ms",
        "sample.carrier.failure-rate=0",
        "sample.report.cron=* * * * * *",
        "sample.report.zone=Europe/Berlin"})
class NightlyReportTest {

    private static final String SCHEMA = "durable_sample_report";
    /** An order of three lines: three children of the machine reserve-line, on the order's queue. */
    private static final String THREE_LINES = "{\"customerId\":7,\"lines\":[{\"sku\":\"A-1\",\"quantity\":1},"
            + "{\"sku\":\"B-2\",\"quantity\":2},{\"sku\":\"C-3\",\"quantity\":3}],\"amountCents\":2599}";

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SampleDatabase.use(registry, SCHEMA);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    DataSource dataSource;

    @Test
    void theReportScheduleStartsReportsThatCountTheOrdersAndNotTheirLines() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long shipped = placeOrderOfThreeLines(http);
        long waiting = placeOrderOfThreeLines(http);
        long cancelled = placeOrderOfThreeLines(http);
        for (long order : new long[] {shipped, waiting, cancelled}) {
            await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(order));
        }
        assertThat(http.pay(shipped, "evt-" + shipped).status()).isEqualTo(202);
        assertThat(http.post("/orders/" + cancelled + "/cancel", "{\"reason\":\"changed my mind\"}").status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.status(shipped).equals("done"));

        // The orders as their rows stand, and the queue they share with their lines.
        Map<String, Long> orders = countByStatus("machine = 'order'");
        Map<String, Long> queue = countByStatus("queue = 'orders'");
        assertThat(orders).containsExactlyInAnyOrderEntriesOf(Map.of("done", 1L, "awaiting_signal", 1L,
                "cancelled", 1L));
        assertThat(queue.get("done")).as("the nine lines are done too").isEqualTo(10L);

        // Ticks may have fired before the orders settled: wait for a report made after they did.
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            JsonNode latest = http.get("/reports").json().get(0);
            return latest != null && latest.path("orders").path("done").asLong() == 1
                    && latest.path("orders").path("cancelled").asLong() == 1;
        });
        JsonNode latest = http.get("/reports").json().get(0);
        assertThat(latest.path("countedAt").asString()).isNotEmpty();
        Map<String, Long> reported = new TreeMap<>();
        latest.path("orders").properties().forEach(entry -> {
            if (entry.getValue().asLong() != 0) {
                reported.put(entry.getKey(), entry.getValue().asLong());
            }
        });
        assertThat(reported).isEqualTo(orders);
        // Every status is in the report, the empty ones at zero.
        assertThat(latest.path("orders").propertyNames()).containsExactlyInAnyOrder("runnable", "executing",
                "awaiting_signal", "suspended", "done", "failed", "cancelled");

        JsonNode schedule = http.get("/actuator/durable").json().path("schedules").get(0);
        assertThat(schedule.path("name").asString()).isEqualTo("nightly-report");
        assertThat(schedule.path("cron").asString()).isEqualTo("* * * * * *");
        assertThat(schedule.path("zone").asString()).isEqualTo("Europe/Berlin");
        assertThat(schedule.path("declared").asBoolean()).isTrue();
        assertThat(schedule.path("lastFiredAt").asString()).isNotEmpty();
    }

    private static long placeOrderOfThreeLines(SampleHttp http) throws Exception {
        SampleHttp.Response response = http.post("/orders", THREE_LINES);
        assertThat(response.status()).isEqualTo(201);
        return response.json().path("id").asLong();
    }

    /** The instances of the sample's schema that {@code where} selects, by status, straight from the rows. */
    private Map<String, Long> countByStatus(String where) {
        Map<String, Long> counts = new TreeMap<>();
        new JdbcTemplate(dataSource).query("SELECT status::text AS status, count(*) AS n FROM " + SCHEMA
                + ".durable_instance WHERE " + where + " GROUP BY 1", rs -> {
                    counts.put(rs.getString("status"), rs.getLong("n"));
                });
        return counts;
    }
}
