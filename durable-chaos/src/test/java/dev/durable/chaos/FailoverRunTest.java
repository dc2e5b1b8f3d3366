package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The short form of the failover run (docs/RELIABILITY.md, "Failover"), in the default suite: a primary and a
 * synchronous streaming standby built with the machine's PostgreSQL binaries, two node JVMs on a multi-host URL
 * ({@code targetServerType=primary}), 1,000 instances and 100 families; the primary's postmaster is killed with
 * SIGKILL in the middle and the standby promoted. Nothing acknowledged is lost (starts, signals, cancels, the outcomes
 * the nodes were told had committed), every invariant of the chaos run holds, and the nodes carry on by themselves.
 * Skipped, saying so, on a machine without PostgreSQL's {@code pg_basebackup}.
 */
class FailoverRunTest {

    @Test
    void synchronousReplicationLosesNothingAcknowledgedAcrossAFailover() throws Exception {
        assumeTrue(ReplicatedPostgres.binaries().isPresent(), "no PostgreSQL binaries with pg_basebackup under "
                + "/usr/lib/postgresql/*/bin (or DURABLE_PG_BIN): the failover run needs them");
        ChaosConfig config = ChaosConfig.failoverRun(Path.of("target", "chaos"), "sync").with(Map.of(
                "instances", "1000", "waves", "8", "families", "100",
                "insertWindow", "20", "chaosWindow", "25"));

        ChaosOrchestrator.Result result = ChaosOrchestrator.run(config, System.out);

        assertThat(result.violations()).as(String.join("\n", result.checks())).isZero();
        assertThat(result.summary()).startsWith("failover: replication=sync ").contains(" violations=0 ");
        for (String lost : new String[] {"lost_starts", "lost_signals", "lost_cancels", "lost_transitions"}) {
            assertThat(count(result.summary(), lost)).as(lost).isZero();
        }
        // The failover happened while work was committed on both sides of it, and the nodes went DEGRADED and came
        // back by themselves.
        assertThat(count(result.summary(), "committed")).isGreaterThan(1000);
        assertThat(count(result.summary(), "degraded")).isPositive();
        assertThat(count(result.summary(), "recovered")).isEqualTo(count(result.summary(), "degraded"));
        assertThat(count(result.summary(), "degraded_ms")).isPositive();
        assertThat(result.checks()).anySatisfy(check -> assertThat(check)
                .startsWith("check committed-transitions-kept: PASS"));
    }

    private static long count(String summary, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(-?\\d+)").matcher(summary);
        assertThat(m.find()).as(name + " in " + summary).isTrue();
        return Long.parseLong(m.group(1));
    }
}
