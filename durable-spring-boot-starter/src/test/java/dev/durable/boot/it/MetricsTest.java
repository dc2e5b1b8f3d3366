package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.SignalResult;
import dev.durable.boot.actuate.DurableMetrics;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineTestHooks;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

/** The engine's meters exist with their tags and move with what the engine does. */
class MetricsTest extends IntegrationTest {

    @Autowired
    DurableClient durable;

    @Autowired
    DurableEngine engine;

    @Autowired
    MeterRegistry registry;

    @Autowired
    DurableMetrics metrics;

    @Value("${local.server.port}")
    int port;

    @Test
    void stepDurationIsTimedByMachineStepOutcomeAndFate() throws Exception {
        long id = durable.start(Workflow.class, new Workflow.State("timed", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        assertThat(timer("workflow", "start", "next").count()).isPositive();
        assertThat(timer("workflow", "count", "retry").count()).isGreaterThanOrEqualTo(2);
        assertThat(timer("workflow", "flaky", "retry").count()).isPositive();
        assertThat(timer("workflow", "wait", "await").count()).isPositive();
        assertThat(timer("workflow", "start", "next").totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(registry.find("durable.step.duration").timers())
                .allSatisfy(timer -> assertThat(timer.getId().getTags()).extracting("key")
                        .containsExactlyInAnyOrder("machine", "step", "outcome", "fate"));
        assertThat(registry.get("durable.picks").tag("queue", "default").counter().count()).isPositive();
        assertThat(new Http(port).get("/actuator/metrics/durable.step.duration").json()
                .path("availableTags").findValuesAsString("tag")).contains("machine", "step", "outcome", "fate");
    }

    /** A row stored by earlier code whose state would lose a property: suspended, counted by machine. */
    @Test
    void suspendedInstancesAreCountedByMachine() {
        long id = TestDatabase.jdbc().queryForObject("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) VALUES ('workflow', 1, 'start',"
                + " '{\"name\": \"narrowed\", \"count\": 0, \"legacy\": true}', 'default') RETURNING id",
                Long.class);
        engine.wake("default");

        await().atMost(Duration.ofSeconds(20)).until(() -> durable.find(id).orElseThrow().status()
                == dev.durable.InstanceStatus.SUSPENDED);
        assertThat(registry.get("durable.instances.suspended").tag("machine", "workflow").counter().count())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void signalsAreCountedAsDeliveredDeduplicatedAndRefused() {
        long id = durable.start(Workflow.class, new Workflow.State("signalled", 0)).id();
        double delivered = signals("delivered");
        double deduplicated = signals("deduplicated");
        double refused = signals("refused");

        assertThat(durable.signal(id, "note", null, "n-1").delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
        assertThat(durable.signal(id, "note", null, "n-1").delivery())
                .isEqualTo(SignalResult.Delivery.DEDUPLICATED);
        assertThat(durable.signal(424242, "note", null).isRefused()).isTrue();

        assertThat(signals("delivered")).isEqualTo(delivered + 1);
        assertThat(signals("deduplicated")).isEqualTo(deduplicated + 1);
        assertThat(signals("refused")).isEqualTo(refused + 1);
    }

    @Test
    void reapedAndFencedOutcomesAreCounted() throws Exception {
        double reaped = registry.get("durable.reaped").functionCounter().count();
        double fenced = outcomes("fenced");
        long id = durable.start(Blocker.class, "fence-me").id();
        gate.awaitEntered(id);

        // The claim's lease runs out (as if this node had stalled) and the reaper takes the row back.
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance"
                    + " SET lease_expires_at = now() - interval '1 second' WHERE id = ? AND status = 'executing'"
                    + " AND attempt = 0", id);
            return EngineTestHooks.reapNow(engine) > 0;
        });
        gate.open(id);

        await().atMost(Duration.ofSeconds(20)).until(() -> outcomes("fenced") > fenced);
        assertThat(registry.get("durable.reaped").functionCounter().count()).isGreaterThan(reaped);
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(registry.find("durable.step.duration").tags("outcome", "done", "fate", "fenced").timer())
                .as("the step decided done, and its outcome was fenced off").isNotNull();
    }

    /** A parked instance whose deadline passes is fired by this node's sweep, and counted. */
    @Test
    void firedAwaitDeadlinesAreCounted() {
        double fired = registry.get("durable.deadlines.fired").functionCounter().count();
        long id = durable.start(Workflow.class, new Workflow.State("deadline", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        // The workflow awaits without a deadline; give the parked row one that has passed, as a timed await would.
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance"
                + " SET deadline = now() - interval '1 second' WHERE id = ? AND status = 'awaiting_signal'", id);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> registry.get("durable.deadlines.fired").functionCounter().count() > fired);
        // Re-run timed out, the step awaits again, without a deadline.
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.jdbc().queryForObject(
                "SELECT status = 'awaiting_signal' AND deadline IS NULL FROM " + TestDatabase.SCHEMA
                        + ".durable_instance WHERE id = ?", Boolean.class, id));
    }

    /** Rows of a version no live node runs: a gauge by machine and version, which goes when they do. */
    @Test
    void strandedInstancesAreAGaugeByMachineAndVersion() {
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) VALUES ('workflow', 99, 'start', '{}', 'default')");
        EngineTestHooks.reapNow(engine);
        metrics.refresh();

        assertThat(registry.get("durable.instances.stranded").tags("machine", "workflow", "version", "99").gauge()
                .value()).isEqualTo(1);

        TestDatabase.jdbc().update("DELETE FROM " + TestDatabase.SCHEMA + ".durable_instance"
                + " WHERE machine_version = 99");
        EngineTestHooks.reapNow(engine);
        metrics.refresh();

        assertThat(registry.find("durable.instances.stranded").gauges()).isEmpty();
    }

    @Test
    void queueDepthIsMeasuredByQueueAndStatus() {
        long id = durable.start(Workflow.class, new Workflow.State("deep", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Gauge awaiting = registry.find("durable.queue.depth").tags("queue", "default", "status", "awaiting_signal")
                    .gauge();
            assertThat(awaiting).isNotNull();
            assertThat(awaiting.value()).isEqualTo(1.0);
        });
        assertThat(registry.find("durable.queue.depth").tag("queue", "default").gauges())
                .extracting(gauge -> gauge.getId().getTag("status"))
                .containsExactlyInAnyOrder("runnable", "executing", "awaiting_signal", "suspended", "failed");
        // A queue of this node with nothing unfinished reads zero rather than vanishing.
        assertThat(registry.get("durable.queue.depth").tags("queue", "shutdown", "status", "runnable").gauge()
                .value()).isZero();
        assertThat(registry.find("durable.queue.oldest.runnable.age").tag("queue", "default").gauge()).isNotNull();
        assertThat(registry.find("durable.queue.expired.leases").tag("queue", "default").gauge()).isNotNull();
        assertThat(registry.get("durable.claims").gauge().value()).isGreaterThanOrEqualTo(0);
        assertThat(registry.get("durable.queue.concurrency").tag("queue", "slow").gauge().value()).isEqualTo(4);
        assertThat(registry.get("durable.zombies").gauge().value()).isZero();
    }

    /**
     * The unfinished instances by queue, machine, version and what they wait for: every reason of every machine version
     * this node registers, zeros included; a workflow parked on a signal without a deadline under its machine and the
     * reason {@code signal}; summed over machines and reasons, the depth of each status of the queue.
     */
    @Test
    void instancesAreAGaugeByQueueMachineVersionStatusAndReason() {
        long id = durable.start(Workflow.class, new Workflow.State("reasoned", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        metrics.refresh();

        assertThat(registry.get("durable.instances").tags("queue", "default", "machine", "workflow", "version", "1",
                "status", "awaiting_signal", "reason", "signal").gauge().value()).isEqualTo(1);
        assertThat(registry.find("durable.instances").tags("machine", "workflow", "version", "1").gauges())
                .extracting(gauge -> gauge.getId().getTag("reason"))
                .containsExactlyInAnyOrder("ready", "timer", "executing", "signal", "deadline", "children",
                        "suspended", "failed");
        assertThat(registry.find("durable.instances").tags("machine", "blocker").gauges()).isNotEmpty()
                .allSatisfy(gauge -> assertThat(gauge.value()).isZero());
        for (String status : List.of("runnable", "executing", "awaiting_signal", "suspended", "failed")) {
            double byReason = registry.find("durable.instances").tags("queue", "default", "status", status).gauges()
                    .stream().mapToDouble(Gauge::value).sum();
            assertThat(byReason).as(status).isEqualTo(registry.get("durable.queue.depth")
                    .tags("queue", "default", "status", status).gauge().value());
        }
        assertThat(registry.find("durable.instances").gauges()).allSatisfy(gauge -> assertThat(gauge.getId().getTags())
                .extracting("key").containsExactlyInAnyOrder("queue", "machine", "version", "status", "reason"));
    }

    private Timer timer(String machine, String step, String outcome) {
        return registry.get("durable.step.duration").tags("machine", machine, "step", step, "outcome", outcome,
                "fate", "committed").timer();
    }

    private double signals(String delivery) {
        FunctionCounter counter = registry.get("durable.signals").tag("delivery", delivery).functionCounter();
        return counter.count();
    }

    private double outcomes(String fate) {
        return registry.get("durable.outcomes").tag("fate", fate).functionCounter().count();
    }
}
