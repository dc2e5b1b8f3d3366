package dev.durable.boot.it;

import dev.durable.boot.autoconfigure.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One web application on a random port, shared by the integration tests (same configuration, same context). Leases
 * keep their default length: a test that needs one to expire expires it in the database, and a heartbeat every
 * 20 s seldom comes between that and what the test observes.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "management.endpoints.web.exposure.include=health,durable,metrics",
                "management.endpoint.health.show-details=always",
                "management.endpoint.durable.access=unrestricted",
                "durable.queues.slow.concurrency=4",
                // GracefulShutdownTest' queue: its own application must be the only one to take that work.
                "durable.queues.shutdown.concurrency=0",
                "durable.metrics.queue-depth-refresh-interval=200ms"})
abstract class IntegrationTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        for (String property : TestDatabase.properties()) {
            int equals = property.indexOf('=');
            registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
        }
    }

    @Autowired
    StepGate gate;

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
        gate.reset();
    }
}
