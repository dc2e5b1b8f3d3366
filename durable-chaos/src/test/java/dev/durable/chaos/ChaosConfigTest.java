package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The failover settings of {@link ChaosConfig}: what they default to and what they refuse. */
class ChaosConfigTest {

    private static final Path DIR = Path.of("target", "chaos");

    @Test
    void theChaosRunsFailNothingOverAndTheFailoverRunFailsOverOnce() {
        assertThat(ChaosConfig.shortRun(DIR).failovers()).isZero();
        assertThat(ChaosConfig.longRun(DIR).replicationMode()).isNull();
        ChaosConfig async = ChaosConfig.failoverRun(DIR, "async");
        assertThat(async.failovers()).isEqualTo(1);
        assertThat(async.faults()).isEqualTo(1);
        assertThat(async.replicationMode()).isEqualTo(ReplicatedPostgres.Mode.ASYNC);
        assertThat(async.replicationLag()).isPositive();
        assertThat(ChaosConfig.failoverRun(DIR, "sync").replicationLag()).isZero();
        assertThat(ChaosConfig.shortRun(DIR).with(Map.of("replication", "sync", "pgRestarts", "0"))
                .replicationMode()).isEqualTo(ReplicatedPostgres.Mode.SYNC);
    }

    @Test
    void anUnknownReplicationModeIsRefusedByName() {
        assertThatThrownBy(() -> ChaosConfig.shortRun(DIR).with(Map.of("replication", "semi")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replication must be none, sync or async, was semi");
    }

    @Test
    void aFailoverRunRestartsNoServer() {
        assertThatThrownBy(() -> ChaosConfig.failoverRun(DIR, "sync").with(Map.of("pgCrashes", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replication=sync fails the primary over once and restarts no server: pgRestarts and "
                        + "pgCrashes must be 0, were 0 and 1");
    }
}
