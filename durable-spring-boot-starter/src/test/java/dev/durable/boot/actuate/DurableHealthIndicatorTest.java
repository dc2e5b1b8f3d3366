package dev.durable.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.NodeState;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The health indicator follows the node's lifecycle. */
class DurableHealthIndicatorTest {

    @Test
    void isUnknownBeforeStartDownWhileTheDatabaseIsUnreachableAndOutOfServiceWhenStopped() {
        // Nothing listens on port 1: every statement fails as if the database were down.
        DriverManagerDataSource unreachable = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none");
        DurableEngine engine = DurableEngine.builder(unreachable, MachineRegistry.of())
                .settings(EngineSettings.builder().nodeName("health-test").pollInterval(Duration.ofMillis(100))
                        .maxRetryBackoff(Duration.ofMillis(200)).build())
                .build();
        DurableHealthIndicator indicator = new DurableHealthIndicator(engine);
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UNKNOWN);
        try {
            engine.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.state() == NodeState.DEGRADED);
            Health degraded = indicator.health();
            assertThat(degraded.getStatus()).isEqualTo(Status.DOWN);
            assertThat(degraded.getDetails()).containsEntry("state", "degraded").containsKey("error")
                    .containsEntry("zombies", 0);
        } finally {
            engine.stop();
        }
        assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(indicator.health().getDetails()).containsEntry("state", "stopped");
    }
}
