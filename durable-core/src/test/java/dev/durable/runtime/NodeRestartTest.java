package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.test.process.ChildJvm;
import dev.durable.testing.CrashNode;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pitfall P9 (docs/DESIGN.md): a node that restarts must not strand its own claims for a whole lease, yet must not
 * steal the live claims of another node that happens to share its name.
 */
class NodeRestartTest {

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final List<Integer> attempts = new CopyOnWriteArrayList<>();

    /** Lease one minute, heartbeat 300 ms: a claim of a dead start looks stale after 600 ms. */
    private static UnaryOperator<EngineSettings.Builder> longLease() {
        return settings -> settings.leaseTtl(Duration.ofSeconds(60)).heartbeatInterval(Duration.ofMillis(300));
    }

    @Test
    void aRestartedNodeReleasesTheClaimsOfItsKilledEarlierStartLongBeforeTheirLeasesExpire() throws Exception {
        MachineDefinition machine = CrashNode.machine((state, ctx) -> {
            attempts.add(ctx.attempt());
            return Outcome.done();
        });
        long id = engines.clientOnly(machine).start(CrashNode.MACHINE, null).id();
        TestPostgres postgres = TestPostgres.get();
        try (ChildJvm firstStart = ChildJvm.start(CrashNode.class, postgres.jdbcUrl(), postgres.username(),
                postgres.password(), "phoenix", "60000", "300")) {
            firstStart.awaitLineStartingWith("STARTED " + id, Duration.ofSeconds(60));
            firstStart.kill();
        }
        long killedAt = System.nanoTime();

        engines.start("phoenix", longLease(), machine);
        await().atMost(Duration.ofSeconds(30)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).isLessThan(Duration.ofSeconds(30));
        assertThat(attempts).containsExactly(1);
        Map<String, Object> row = TestDatabase.row(id);
        assertThat((String) row.get("last_error")).startsWith("claim of phoenix:")
                .endsWith("released by a later start at step work");
    }

    @Test
    void aNodeDoesNotReleaseTheLiveClaimsOfAnotherNodeWithTheSameName() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        MachineDefinition machine = CrashNode.machine((state, ctx) -> {
            attempts.add(ctx.attempt());
            started.countDown();
            finish.await();
            return Outcome.done();
        });
        DurableEngine first = engines.start("twin", longLease(), machine);
        long id = first.client().start(CrashNode.MACHINE, null).id();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Object token = TestDatabase.row(id).get("lease_token");

        DurableEngine second = engines.start("twin", longLease(), machine);

        // Well past the two heartbeats after which a dead start's claim would be released (five of them).
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
                .until(() -> TestDatabase.row(id).get("lease_token").equals(token));
        assertThat(second.stats().reaped()).isZero();
        finish.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(attempts).containsExactly(0);
    }
}
