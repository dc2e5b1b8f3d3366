package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.machine.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Settings exist only as their validating builder made them, and compare, hash and print by value. The settings bound to
 * each other follow those that were set, and only two set values can conflict.
 */
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
                        "retentionBatchSize=1000", "deployCheck=WARN", "wakeUps=LISTEN]");
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

    @Test
    void aPollIntervalAloneIsTheIdleNodesToo() {
        EngineSettings settings = EngineSettings.builder().pollInterval(Duration.ofSeconds(30)).build();

        assertThat(settings.pollInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.idlePollInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.scheduleMisfireThreshold()).isEqualTo(EngineSettings.DEFAULT_SCHEDULE_MISFIRE_THRESHOLD);
        EngineSettings slower = EngineSettings.builder().pollInterval(Duration.ofMinutes(2)).build();
        assertThat(slower.idlePollInterval()).isEqualTo(Duration.ofMinutes(2));
        assertThat(slower.scheduleMisfireThreshold()).as("longer than the idle poll").isEqualTo(Duration.ofMinutes(4));
    }

    @Test
    void everyUnsetBoundSettingFollowsTheSetOnes() {
        EngineSettings shortIdle = EngineSettings.builder().idlePollInterval(Duration.ofMillis(50)).build();
        assertThat(shortIdle.pollInterval()).isEqualTo(Duration.ofMillis(50));

        EngineSettings shortMisfire = EngineSettings.builder().scheduleMisfireThreshold(Duration.ofMillis(500)).build();
        assertThat(shortMisfire.idlePollInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(shortMisfire.pollInterval()).isEqualTo(EngineSettings.DEFAULT_POLL_INTERVAL);

        EngineSettings pollAndMisfire = EngineSettings.builder().pollInterval(Duration.ofSeconds(30))
                .scheduleMisfireThreshold(Duration.ofSeconds(45)).build();
        assertThat(pollAndMisfire.idlePollInterval()).isEqualTo(Duration.ofSeconds(30));

        EngineSettings shortLease = EngineSettings.builder().leaseTtl(Duration.ofSeconds(30)).build();
        assertThat(shortLease.heartbeatInterval()).isEqualTo(Duration.ofSeconds(10));
        EngineSettings slowHeartbeat = EngineSettings.builder().heartbeatInterval(Duration.ofSeconds(40)).build();
        assertThat(slowHeartbeat.leaseTtl()).isEqualTo(Duration.ofSeconds(120));

        EngineSettings defaults = EngineSettings.defaults();
        assertThat(defaults.leaseTtl()).isEqualTo(EngineSettings.DEFAULT_LEASE_TTL);
        assertThat(defaults.heartbeatInterval()).isEqualTo(EngineSettings.DEFAULT_HEARTBEAT_INTERVAL);
        assertThat(defaults.pollInterval()).isEqualTo(EngineSettings.DEFAULT_POLL_INTERVAL);
        assertThat(defaults.idlePollInterval()).isEqualTo(EngineSettings.DEFAULT_IDLE_POLL_INTERVAL);
        assertThat(defaults.scheduleMisfireThreshold()).isEqualTo(EngineSettings.DEFAULT_SCHEDULE_MISFIRE_THRESHOLD);
    }

    @Test
    void twoSetValuesThatConflictAreRefusedNamingBoth() {
        assertThatThrownBy(() -> EngineSettings.builder().pollInterval(Duration.ofSeconds(30))
                .idlePollInterval(Duration.ofSeconds(1)).build()).isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("Invalid durable setting 'idlePollInterval': PT1S is shorter than pollInterval"
                        + " (PT30S)");
        assertThatThrownBy(() -> EngineSettings.builder().leaseTtl(Duration.ofSeconds(30))
                .heartbeatInterval(Duration.ofSeconds(11)).build())
                .hasMessageStartingWith("Invalid durable setting 'heartbeatInterval': PT11S is more than a third of"
                        + " leaseTtl (PT30S)");
        assertThatThrownBy(() -> EngineSettings.builder().idlePollInterval(Duration.ofSeconds(5))
                .scheduleMisfireThreshold(Duration.ofSeconds(5)).build())
                .hasMessageStartingWith("Invalid durable setting 'scheduleMisfireThreshold': PT5S is not longer than"
                        + " idlePollInterval (PT5S)");
        // The idle poll interval unset cannot come between them: the two set values conflict.
        assertThatThrownBy(() -> EngineSettings.builder().pollInterval(Duration.ofSeconds(30))
                .scheduleMisfireThreshold(Duration.ofSeconds(20)).build())
                .hasMessageStartingWith("Invalid durable setting 'scheduleMisfireThreshold': PT20S is not longer than"
                        + " pollInterval (PT30S)");
        assertThatThrownBy(() -> EngineSettings.builder().pollInterval(Duration.ZERO).build())
                .hasMessage("Invalid durable setting 'pollInterval': must be a positive duration, was PT0S");
    }

    @Test
    void anUnsetBoundSettingStaysUnsetThroughToBuilder() {
        EngineSettings settings = EngineSettings.builder().pollInterval(Duration.ofSeconds(30)).build();

        EngineSettings faster = settings.toBuilder().pollInterval(Duration.ofMillis(200)).build();

        assertThat(faster.idlePollInterval()).as("followed the poll interval, not kept at 30s")
                .isEqualTo(EngineSettings.DEFAULT_IDLE_POLL_INTERVAL);
        assertThat(EngineSettings.builder().leaseTtl(EngineSettings.DEFAULT_LEASE_TTL).build())
                .as("set to the defaults or left unset, the same settings").isEqualTo(EngineSettings.defaults());
    }
}
