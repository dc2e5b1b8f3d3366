package dev.durable.boot.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.boot.it.Http;
import dev.durable.machine.StepFailureException;
import dev.durable.test.postgres.TcpProxy;
import dev.durable.test.postgres.TestPostgres;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Faults as an operator sees them, over HTTP (docs/DESIGN.md, "Shutdown, degraded mode and zombies"). The application's
 * whole connection pool reaches PostgreSQL through a {@link TcpProxy}: cutting it resets every open connection and
 * refuses new ones, a real outage as far as the driver can tell. And a step that ignores its interrupt past its timeout
 * shows up as a zombie in {@code /actuator/health} and in the {@code durable.zombies} gauge, holding its slot until it
 * ends.
 */
@SpringBootTest(classes = FaultReportingTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "management.endpoints.web.exposure.include=health",
                "management.endpoint.health.show-details=always",
                "durable.queues.stubborn.concurrency=1",
                "durable.max-retry-backoff=500ms",
                // Fail fast while cut: Hikari would otherwise wait 30 s for a connection before reporting anything.
                "spring.datasource.hikari.connection-timeout=1000",
                "spring.datasource.hikari.validation-timeout=500"})
class FaultReportingTest {

    private static final TcpProxy PROXY = TcpProxy.forJdbcUrl(TestPostgres.get().jdbcUrl());

    /** Holds the stubborn step until a test lets go of it. */
    static final AtomicBoolean LET_GO = new AtomicBoolean();

    record Job(boolean stubborn) {
    }

    @DurableMachine(name = "stubborn", queue = "stubborn")
    @Retry(maxAttempts = "1") // the timeout fails the zombie's instance: a retry would run it again
    static class Stubborn {
        @Step(value = "spin", initial = true, timeout = "300ms")
        Outcome spin(Job job) {
            while (job.stubborn() && !LET_GO.get()) {
                Thread.onSpinWait(); // deaf to interruption: a zombie once the timeout and its grace have passed
            }
            return Outcome.done();
        }
    }

    /** The starter, web and actuator, and only this test's machine (nothing is scanned). */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Stubborn.class)
    static class App {
    }

    @DynamicPropertySource
    static void databaseThroughTheProxy(DynamicPropertyRegistry registry) {
        for (String property : TestDatabase.properties()) {
            int equals = property.indexOf('=');
            String name = property.substring(0, equals);
            String value = property.substring(equals + 1);
            registry.add(name, () -> name.equals("spring.datasource.url") ? PROXY.jdbcUrl(value) : value);
        }
    }

    @Autowired
    DurableClient durable;

    @Autowired
    MeterRegistry registry;

    @Value("${local.server.port}")
    int port;

    @BeforeEach
    void reset() {
        PROXY.restore();
        LET_GO.set(false);
        TestDatabase.clean();
    }

    @AfterEach
    void letGo() {
        PROXY.restore();
        LET_GO.set(true);
    }

    @AfterAll
    static void closeProxy() {
        PROXY.close();
    }

    @Test
    void healthIsDownWhileTheDatabaseIsUnreachableAndTheNodeRecoversByItself() {
        Http http = new Http(port);
        await().atMost(Duration.ofSeconds(20)).until(() -> durableHealth(http).path("status").asString().equals("UP"));

        PROXY.cut();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Http.Response response = http.get("/actuator/health");
            assertThat(response.status()).isEqualTo(503);
            JsonNode durableHealth = response.json().path("components").path("durable");
            assertThat(durableHealth.path("status").asString()).isEqualTo("DOWN");
            assertThat(durableHealth.path("details").path("state").asString()).isEqualTo("degraded");
            assertThat(durableHealth.path("details").path("error").asString()).isNotBlank();
        });
        long restoredAt = System.nanoTime();
        PROXY.restore();

        // Poll interval 200 ms, retry backoff at most 500 ms: a few of them, not a restart, bring it back.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode durableHealth = durableHealth(http);
            assertThat(durableHealth.path("status").asString()).isEqualTo("UP");
            assertThat(durableHealth.path("details").path("state").asString()).isEqualTo("running");
        });
        assertThat(Duration.ofNanos(System.nanoTime() - restoredAt)).isLessThan(Duration.ofSeconds(5));
        long id = durable.start("stubborn", new Job(false)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(PROXY.connectionsRefused()).as("the outage was real: connections were refused").isPositive();
    }

    @Test
    void aStepIgnoringItsTimeoutIsAZombieInHealthAndMetricsAndKeepsItsSlotUntilItEnds() throws Exception {
        Http http = new Http(port);
        double detectedBefore = registry.get("durable.zombies.detected").functionCounter().count();
        long zombie = durable.start("stubborn", new Job(true)).id();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode durableHealth = durableHealth(http);
            assertThat(durableHealth.path("details").path("zombies").asInt()).isEqualTo(1);
            assertThat(durableHealth.path("status").asString()).as("one zombie is within durable.max-zombies")
                    .isEqualTo("UP");
        });
        assertThat(registry.get("durable.zombies").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("durable.zombies.detected").functionCounter().count() - detectedBefore)
                .isEqualTo(1.0);

        // The queue runs one step at a time and the zombie still holds that slot: the next instance waits.
        long next = durable.start("stubborn", new Job(false)).id();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> TestDatabase.status(next).equals("runnable")
                        && TestDatabase.status(zombie).equals("executing"));

        LET_GO.set(true);

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(next).equals("done"));
        assertThat(TestDatabase.status(zombie)).isEqualTo("failed");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT last_error FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE id = ?", String.class, zombie))
                .startsWith(StepFailureException.Timeout.class.getName());
        assertThat(durableHealth(http).path("details").path("zombies").asInt()).isZero();
        assertThat(registry.get("durable.zombies").gauge().value()).isZero();
    }

    private static JsonNode durableHealth(Http http) throws Exception {
        return http.get("/actuator/health").json().path("components").path("durable");
    }
}
