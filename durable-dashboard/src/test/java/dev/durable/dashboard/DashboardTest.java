package dev.durable.dashboard;

import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.dashboard.app.DashboardTestApplication;
import dev.durable.dashboard.app.Parcels;
import dev.durable.dashboard.app.Parcels.Parcel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One application with the dashboard on, writes allowed, two targets, on a random port: shared (same configuration,
 * same context) by the dashboard's tests that write. A subclass that declares its own {@code @SpringBootTest} gets
 * an application of its own.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"durable.dashboard.read-only=false", "management.endpoint.durable.show-values=always",
                // Targets for the overview: a parcel parked at await-pickup is past the first at once.
                "durable.machines.parcel.targets.time-at-step.await-pickup=1ms",
                "durable.queues.parcels.targets.oldest-runnable-age=1h"})
abstract class DashboardTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DashboardDatabase.properties(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    DurableClient durable;

    /** The node's targets: a test checks them now rather than wait for the background check. */
    @Autowired
    DurableTargets targets;

    static final Duration WAIT = Duration.ofSeconds(10);

    @BeforeEach
    void cleanDatabase() {
        DashboardDatabase.DATABASE.cleanKeepingNodes();
        Parcels.broken.clear();
    }

    /** A parcel started and parked at await-pickup. */
    long parked(String name) {
        long id = durable.start(Parcels.class, new Parcel(name)).id();
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(id).equals("awaiting_signal"));
        return id;
    }

    /** Checks the targets now, until the time-at-step one counts {@code late} parcels past it. */
    void checkedUntilPastTheStepTarget(long late) {
        await().atMost(WAIT).until(() -> targets.check().checks().stream()
                .anyMatch(check -> check.target().step() != null && check.breaching() == late));
    }

    /** A parcel started whose label step fails it. */
    long failed(String name) {
        Parcels.broken.add(name);
        long id = durable.start(Parcels.class, new Parcel(name)).id();
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(id).equals("failed"));
        return id;
    }

    String url(String path) {
        return "http://localhost:" + port + "/durable" + path;
    }

    /** The answer to a GET of the dashboard's JSON: status and body. */
    Answer get(String path) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).GET().build());
    }

    /** The answer to a POST of JSON to the dashboard, with the header its pages send when {@code asPage}. */
    Answer post(String path, String json, boolean asPage) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path)))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (asPage) {
            request.header(DashboardAccess.WRITE_HEADER, "1");
        }
        return send(request.build());
    }

    private static Answer send(HttpRequest request) {
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    record Answer(int status, String body) {

        JsonNode json() {
            return JSON.readTree(body);
        }
    }
}
