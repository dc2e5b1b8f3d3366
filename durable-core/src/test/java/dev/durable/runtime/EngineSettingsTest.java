package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Settings exist only as their validating builder made them, and compare, hash and print by value. */
class EngineSettingsTest {

    @Test
    void theOnlyWayToSettingsIsTheValidatingBuilder() {
        assertThat(EngineSettings.class.isRecord()).isFalse();
        assertThat(EngineSettings.class.getConstructors()).as("public constructors").isEmpty();
    }

    @Test
    void settingsAreValuesThatSurviveARoundTripThroughTheirBuilder() {
        EngineSettings settings = EngineSettings.builder().nodeName("n1").leaseTtl(Duration.ofSeconds(90))
                .queue("mail", QueueSettings.concurrency(3)).stepTimeout(Duration.ofMinutes(1)).build();

        assertThat(settings.toBuilder().build()).isEqualTo(settings).hasSameHashCodeAs(settings);
        assertThat(settings.toBuilder().maxZombies(3).build()).isNotEqualTo(settings);
        assertThat(settings.toBuilder().queue("mail", QueueSettings.concurrency(4)).build()).isNotEqualTo(settings);
        assertThat(settings.toString()).startsWith("EngineSettings[nodeName=n1, schema=public, leaseTtl=PT1M30S, ")
                .contains("queues=", "mail", "stepTimeout=PT1M", "scheduleMisfireThreshold=PT1M", "retentionDone=null",
                        "retentionBatchSize=1000", "deployCheck=WARN]");
        assertThat(settings.toBuilder().deployCheck(DeployCheck.Mode.FAIL).build()).isNotEqualTo(settings);
    }
}
