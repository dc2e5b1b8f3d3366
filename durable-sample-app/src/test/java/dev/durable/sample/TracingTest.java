package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sample's traces with the real OpenTelemetry bridge behind Spring Boot's tracing (docs/DESIGN.md, "Tracing"), as
 * its span exporter writes them to its file: the payment webhook's signal reaches the step it wakes (the woken
 * {@code await-payment} is a child of the {@code durable.signal} span, in the webhook's trace), and the retry of
 * {@code ship} after the park, its carrier down, begins a new trace linked to the attempt before instead of nesting in
 * it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "durable.poll-interval=200ms",
        "durable.idle-poll-interval=200ms",
        "sample.carrier.failure-rate=1.0",
        "durable.retry.delay=10ms",
        "durable.retry.max-attempts=2"})
class TracingTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path TRACES = traces();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SampleDatabase.use(registry, "durable_sample_tracing");
        registry.add("sample.traces.file", TRACES::toString);
    }

    @Value("${local.server.port}")
    int port;

    @Test
    void aSignalReachesTheStepItWakesAndARetryAfterTheParkIsLinkedNotNested() throws Exception {
        SampleHttp http = new SampleHttp(port);
        long id = http.placeOrder(5);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.awaitsPayment(id));
        http.pay(id, "evt-trace-" + id);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.status(id).equals("failed"));

        // The batch span processor exports every few seconds.
        JsonNode shipRetry = await().atMost(Duration.ofSeconds(30)).until(() -> step(id, "ship", 1, 1),
                java.util.Objects::nonNull);
        JsonNode ship = step(id, "ship", 0, 1);
        JsonNode woken = step(id, "await-payment", 0, 2);
        JsonNode parked = step(id, "await-payment", 0, 1);
        JsonNode signal = spans().stream().filter(span -> span.path("name").asString().equals("durable.signal"))
                .filter(span -> span.path("traceId").asString().equals(woken.path("traceId").asString()))
                .findFirst().orElseThrow();
        JsonNode webhook = spans().stream()
                .filter(span -> span.path("spanId").asString().equals(signal.path("parentSpanId").asString()))
                .findFirst().orElseThrow();

        assertThat(webhook.path("name").asString()).isEqualTo("http post /orders/{id}/payment");
        assertThat(woken.path("parentSpanId").asString()).isEqualTo(signal.path("spanId").asString());
        assertThat(strings(woken.path("links"))).contains(id(parked));
        assertThat(ship.path("traceId").asString()).isEqualTo(webhook.path("traceId").asString());
        assertThat(ship.path("status").asString()).isEqualTo("ERROR");

        assertThat(shipRetry.path("traceId").asString()).isNotEqualTo(ship.path("traceId").asString());
        assertThat(shipRetry.path("parentSpanId").isNull()).isTrue();
        assertThat(strings(shipRetry.path("links"))).containsExactly(id(ship));
    }

    /** The {@code nth} span of the order's step at this attempt, or null if it is not exported yet. */
    private static JsonNode step(long id, String step, int attempt, int nth) {
        List<JsonNode> spans = spans().stream()
                .filter(span -> span.path("attributes").path("durable.instance").asString().equals(String.valueOf(id))
                        && span.path("attributes").path("durable.step").asString().equals(step)
                        && span.path("attributes").path("durable.attempt").asString().equals(String.valueOf(attempt))
                        && span.path("attributes").has("durable.outcome"))
                .sorted(java.util.Comparator.comparingLong(span -> span.path("startNanos").asLong()))
                .toList();
        return spans.size() < nth ? null : spans.get(nth - 1);
    }

    private static List<JsonNode> spans() {
        try {
            return Files.exists(TRACES) ? Files.readAllLines(TRACES).stream().map(JSON::readTree).toList()
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String id(JsonNode span) {
        return span.path("traceId").asString() + "-" + span.path("spanId").asString();
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new java.util.ArrayList<>();
        array.forEach(value -> values.add(value.asString()));
        return values;
    }

    private static Path traces() {
        try {
            return Files.createTempDirectory("durable-sample-traces").resolve("traces.jsonl");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
