package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The short chaos run of the default suite (about two minutes): three node JVMs on the orchestrator's own
 * PostgreSQL; six SIGKILLs, a SIGSTOP longer than the lease, a database restart and a SIGTERM while thousands of
 * instances run, families of parents and children are started and cancelled, and a rolling deploy replaces every node
 * by one running version 2 of a machine whose version 1 instances are in flight; then every invariant is checked from
 * the database. Settings can be changed with {@code -Dchaos.args="instances=2000 kills=8"}.
 */
class ShortChaosRunTest {

    @Test
    void nothingIsLostOrAppliedTwiceWhileNodesAndTheDatabaseAreKilledFrozenAndRestarted() throws Exception {
        String[] args = Arrays.stream(System.getProperty("chaos.args", "").trim().split("\\s+"))
                .filter(arg -> !arg.isEmpty()).toArray(String[]::new);
        ChaosConfig config = ChaosConfig.shortRun(Path.of("target", "chaos")).with(ChaosNode.parseLoose(args));

        ChaosOrchestrator.Result result = ChaosOrchestrator.run(config, System.out);

        assertThat(result.violations()).as(String.join("\n", result.checks())).isZero();
        assertThat(result.summary()).startsWith("chaos: ").contains(" violations=0 ");
        assertThat(count(result.summary(), "nodes")).isGreaterThanOrEqualTo(3);
        assertThat(count(result.summary(), "kills")).isGreaterThanOrEqualTo(5);
        assertThat(count(result.summary(), "pauses")).isGreaterThanOrEqualTo(1);
        assertThat(count(result.summary(), "pg_restarts")).isGreaterThanOrEqualTo(1);
        assertThat(count(result.summary(), "sigterms")).isGreaterThanOrEqualTo(1);
        // Parents and children, joins and cancels really happened (issue 11).
        assertThat(count(result.summary(), "families")).isPositive();
        assertThat(count(result.summary(), "joins")).isPositive();
        assertThat(count(result.summary(), "cancels")).isPositive();
        // The rolling deploy really happened (issue 18): every node replaced, instances started on v1 finished on v2
        // after an upcast, v2 ran steps, nothing suspended; no-property-lost is among the checks that passed.
        assertThat(count(result.summary(), "deploys")).isEqualTo(count(result.summary(), "nodes"));
        assertThat(count(result.summary(), "upcast")).isPositive();
        assertThat(count(result.summary(), "v2_steps")).isPositive();
        assertThat(count(result.summary(), "suspended")).isZero();
        assertThat(result.checks()).anySatisfy(check -> assertThat(check).startsWith("check "
                + DeployInvariants.NO_PROPERTY_LOST + ": PASS"));
        assertThat(result.checks()).anySatisfy(check -> assertThat(check)
                .startsWith("check deploy-check-passed: PASS"));
    }

    private static long count(String summary, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(summary);
        assertThat(m.find()).as(name + " in " + summary).isTrue();
        return Long.parseLong(m.group(1));
    }
}
