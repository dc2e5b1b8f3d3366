package dev.durable.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.dashboard.app.Parcels;
import dev.durable.dashboard.app.Parcels.Parcel;
import dev.durable.dashboard.secured.SecuredTestApplication;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard behind the application's Spring Security (docs/DESIGN.md, "Dashboard"): the path is the
 * application's to guard; a user without the write role reads but is refused every write, naming the roles, and
 * nothing changes; a user with it writes, sending the CSRF token the session answer gives, and is named in the
 * history of a rerun.
 */
@SpringBootTest(classes = SecuredTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"durable.dashboard.read-only=false", "durable.dashboard.write-roles=OPS_WRITE"})
@DirtiesContext
class SecuredDashboardTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration WAIT = Duration.ofSeconds(10);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DashboardDatabase.properties(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    DurableClient durable;

    @BeforeEach
    void cleanDatabase() {
        DashboardDatabase.DATABASE.cleanKeepingNodes();
        Parcels.broken.clear();
    }

    /** One user's browser: their credentials and a cookie jar for the session that holds the CSRF token. */
    private final class User {

        private final String authorization;
        private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

        User(String name, String password) {
            authorization = "Basic " + Base64.getEncoder().encodeToString((name + ":" + password)
                    .getBytes(StandardCharsets.UTF_8));
        }

        HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/durable" + path))
                    .header("Authorization", authorization).GET().build(), HttpResponse.BodyHandlers.ofString());
        }

        /** A write as the pages make it: the header, and the CSRF token the session answer names. */
        HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
            JsonNode csrf = JSON.readTree(get("/api/session").body()).get("csrf");
            return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/durable" + path))
                    .header("Authorization", authorization).header("Content-Type", "application/json")
                    .header(DashboardAccess.WRITE_HEADER, "1")
                    .header(csrf.get("header").asString(), csrf.get("token").asString())
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private long failed(String name) {
        Parcels.broken.add(name);
        long id = durable.start(Parcels.class, new Parcel(name)).id();
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(id).equals("failed"));
        return id;
    }

    @Test
    void aUserWithoutTheWriteRoleReadsButIsRefusedEveryWriteAndNothingChanges() throws Exception {
        long id = failed("s1");
        User viewer = new User("viewer", "v");

        assertThat(viewer.get("/api/overview").statusCode()).isEqualTo(200);
        JsonNode session = JSON.readTree(viewer.get("/api/session").body());
        assertThat(session.get("user").asString()).isEqualTo("viewer");
        assertThat(session.get("canWrite").asBoolean()).isFalse();
        HttpResponse<String> retry = viewer.post("/api/instances/" + id + "/retry", "{}");
        assertThat(retry.statusCode()).isEqualTo(403);
        assertThat(JSON.readTree(retry.body()).get("error").asString())
                .isEqualTo("Writes need one of the roles [OPS_WRITE], which user 'viewer' does not have");
        HttpResponse<String> rerun = viewer.post("/api/instances/" + id + "/rerun", "{\"step\":\"pack\"}");
        assertThat(rerun.statusCode()).isEqualTo(403);

        assertThat(DashboardDatabase.DATABASE.status(id)).isEqualTo("failed");
        assertThat(new User("stranger", "x").get("/api/overview").statusCode()).isEqualTo(401);
    }

    @Test
    void aUserWithTheWriteRoleWritesWithTheCsrfTokenAndTheHistoryNamesThem() throws Exception {
        long id = failed("s2");
        Parcels.broken.clear();
        User operator = new User("operator", "o");
        assertThat(JSON.readTree(operator.get("/api/session").body()).get("canWrite").asBoolean()).isTrue();

        HttpResponse<String> rerun = operator.post("/api/instances/" + id + "/rerun", "{\"step\":\"pack\"}");

        assertThat(rerun.statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(id).equals("awaiting_signal"));
        assertThat(durable.history(id)).anySatisfy(entry -> assertThat(entry.error())
                .isEqualTo("rerun from step 'pack' by operator"));
    }
}
