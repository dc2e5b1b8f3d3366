package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.NodeState;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Closing the application drains the engine: running steps finish within the grace period, the rest are released. */
class GracefulShutdownTest {

    private static final Duration GRACE = Duration.ofSeconds(2);

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void closingTheContextLetsRunningStepsFinishAndReleasesUnfinishedClaimsAtOnce() throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
                .properties(TestDatabase.properties("durable.queues.shutdown.concurrency=4", "durable.queues.slow.concurrency=0",
                        "durable.shutdown-grace-period=" + GRACE.toMillis() + "ms",
                        "server.port=0", "server.shutdown=graceful"))
                .run();
        DurableClient durable = context.getBean(DurableClient.class);
        DurableEngine engine = context.getBean(DurableEngine.class);
        StepGate gate = context.getBean(StepGate.class);
        long finishing = durable.start(ShutdownBlocker.class, "finishing").id();
        long outliving = durable.start(ShutdownBlocker.class, "outliving").id();
        gate.awaitEntered(finishing);
        gate.awaitEntered(outliving);

        Thread closer = new Thread(context::close, "closer");
        long closing = System.nanoTime();
        closer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.state() == NodeState.DRAINING);
        // A step that ends within the grace period has its outcome written.
        gate.open(finishing);
        closer.join(Duration.ofSeconds(30).toMillis());
        Duration closed = Duration.ofNanos(System.nanoTime() - closing);

        assertThat(closer.isAlive()).isFalse();
        assertThat(engine.state()).isEqualTo(NodeState.STOPPED);
        assertThat(closed).isGreaterThanOrEqualTo(GRACE).isLessThan(GRACE.plusSeconds(10));
        assertThat(TestDatabase.status(finishing)).isEqualTo("done");
        // The step that outlived the grace period: released to runnable at once, same attempt, no claim left.
        assertThat(engine.stats().released()).isEqualTo(1);
        Map<String, Object> row = TestDatabase.jdbc().queryForMap("SELECT status::text AS status, attempt,"
                + " lease_owner IS NULL AS unclaimed, eligible_at <= now() AS eligible FROM "
                + TestDatabase.SCHEMA + ".durable_instance WHERE id = ?", outliving);
        assertThat(row).containsEntry("status", "runnable").containsEntry("attempt", 0)
                .containsEntry("unclaimed", true).containsEntry("eligible", true);
    }
}
