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
 * instances run; then every invariant is checked from the database. Settings can be changed with
 * {@code -Dchaos.args="instances=2000 kills=8"}.
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
    }

    private static long count(String summary, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(summary);
        assertThat(m.find()).as(name + " in " + summary).isTrue();
        return Long.parseLong(m.group(1));
    }
}
