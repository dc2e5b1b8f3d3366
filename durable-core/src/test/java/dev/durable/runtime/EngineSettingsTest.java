package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.machine.RetryPolicy;
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
        assertThat(settings.retryPolicy()).isEqualTo(RetryPolicy.defaults());
        assertThat(settings.toString()).contains("retryPolicy=RetryPolicy[maxAttempts=10, delay=PT1S, ");
        EngineSettings none = settings.toBuilder().retryPolicy(RetryPolicy.none()).build();
        assertThat(none).isNotEqualTo(settings);
        assertThat(none.toBuilder().build()).isEqualTo(none).hasSameHashCodeAs(none);
    }

    @Test
    void aMissingRetryPolicyIsRefusedNamingTheSettingAndTheWayToRetryNothing() {
        assertThatThrownBy(() -> EngineSettings.builder().retryPolicy(null).build())
                .isInstanceOfSatisfying(InvalidSettingException.class,
                        invalid -> assertThat(invalid.setting()).isEqualTo("retryPolicy"))
                .hasMessage("Invalid durable setting 'retryPolicy': must not be null: RetryPolicy.none() retries"
                        + " nothing");
    }
}
