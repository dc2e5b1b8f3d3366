package dev.durable.boot.docs.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.boot.autoconfigure.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * The starter README's quick start, run as written: an application of its machine and controller, configured by the
 * README's {@code application.yml} (its data source replaced by the test database's), started as a web application;
 * then the README's requests: a sign-up, the instance read through the actuator, the click and a second click, and a
 * click after the deadline.
 */
class QuickStartTest {

    /** The quick start's application: the README's classes, found by the scan, and a mailer that keeps the links. */
    @SpringBootApplication
    static class QuickStartApplication {

        static final Map<String, Long> LINKS = new ConcurrentHashMap<>();

        @Bean
        Mailer mailer() {
            return LINKS::put;
        }
    }

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
        QuickStartApplication.LINKS.clear();
    }

    @Test
    void theReadmesSignupIsStartedConfirmedOnceAndRefusedAfterItsDeadline() throws Exception {
        Map<String, Object> properties = readmeConfiguration();
        for (String property : TestDatabase.properties("server.port=0")) {
            int equals = property.indexOf('=');
            properties.put(property.substring(0, equals), property.substring(equals + 1));
        }
        List<String> arguments = new ArrayList<>();
        properties.forEach((name, value) -> arguments.add("--" + name + "=" + value));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(QuickStartApplication.class)
                .run(arguments.toArray(String[]::new))) {
            String base = "http://localhost:" + app.getEnvironment().getRequiredProperty("local.server.port");

            HttpResponse<String> signedUp = post(base + "/signups?email=ada@example.com");
            assertThat(signedUp.statusCode()).isEqualTo(200);
            long id = Long.parseLong(signedUp.body());
            await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
            assertThat(QuickStartApplication.LINKS).containsEntry("ada@example.com", id);
            HttpResponse<String> instance = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/durable/"
                    + id)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(instance.statusCode()).isEqualTo(200);
            assertThat(instance.body()).contains("\"machine\":\"signup\"", "\"step\":\"await-confirmation\"",
                    "\"status\":\"awaiting_signal\"", "\"awaits\":\"confirmed\"");
            assertThat(Long.parseLong(post(base + "/signups?email=ada@example.com").body()))
                    .as("a second sign-up of the address, while the first runs").isEqualTo(id);

            assertThat(post(base + "/signups/" + id + "/confirm").statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
            assertThat(TestDatabase.jdbc().queryForObject("SELECT result::text FROM " + TestDatabase.SCHEMA
                    + ".durable_instance WHERE id = ?", String.class, id)).contains("\"confirmed\": true");
            assertThat(post(base + "/signups/" + id + "/confirm").statusCode()).as("a second click").isEqualTo(204);

            // Three days later: the deadline fires, the sign-up ends unconfirmed, and the click is refused.
            long late = Long.parseLong(post(base + "/signups?email=bob@example.com").body());
            await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(late).equals("awaiting_signal"));
            TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET deadline = now()"
                    + " WHERE id = ?", late);
            await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(late).equals("done"));
            assertThat(post(base + "/signups/" + late + "/confirm").statusCode()).isEqualTo(410);
        }
    }

    private HttpResponse<String> post(String uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The properties of the quick start's {@code application.yml}, as the README shows it. */
    private static Map<String, Object> readmeConfiguration() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String quickStart = readme.substring(readme.indexOf("## Quick start"));
        int start = quickStart.indexOf("```yaml\n") + "```yaml\n".length();
        String yaml = quickStart.substring(start, quickStart.indexOf("```", start));
        Map<String, Object> properties = new java.util.LinkedHashMap<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader().load("README.md",
                new ByteArrayResource(yaml.getBytes()))) {
            EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
            for (String name : enumerable.getPropertyNames()) {
                properties.put(name, enumerable.getProperty(name));
            }
        }
        assertThat(properties).containsKeys("spring.datasource.url", "durable.queues.default.concurrency",
                "management.endpoints.web.exposure.include");
        return properties;
    }
}
