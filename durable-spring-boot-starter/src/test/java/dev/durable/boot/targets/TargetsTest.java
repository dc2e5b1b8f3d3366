package dev.durable.boot.targets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.Target;
import dev.durable.TargetCheck;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.boot.it.Http;
import dev.durable.boot.test.DurableTest;
import dev.durable.jdbc.DurableSchema;
import dev.durable.test.DurableTestEngine;
import dev.durable.test.postgres.TestPostgres;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Targets (docs/DESIGN.md, "Targets"), as an operator meets them: a breach shows in its meter, in
 * {@code /actuator/durable}, in the health's details (which stay UP) and in the query of the breaching instances, and
 * all of them clear once the instances move on. A 24-hour time-at-step target is passed on the test kit's clock; the
 * queue's oldest-runnable-age target on a queue this node does not run ({@code concurrency 0}), its clock moved by a
 * minute.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "durable.schema=targets_test",
        "durable.queues.orders.concurrency=2",
        "durable.queues.reports.concurrency=0",
        "durable.queues.reports.targets.oldest-runnable-age=30s",
        "durable.machines.order.targets.time-at-step.await-payment=24h",
        "management.endpoints.web.exposure.include=durable,health",
        "management.endpoint.health.show-details=always"})
@DurableTest
class TargetsTest {

    record Order(int number) {
    }

    @DurableMachine(name = "order", queue = "orders")
    static class OrderMachine {

        @Step(value = "await-payment", initial = true)
        Outcome awaitPayment(Order order, StepContext ctx) {
            return ctx.awaited("payment").isPresent() ? Outcome.next("ship", order) : Outcome.await("payment", order);
        }

        @Step("ship")
        Outcome ship(Order order) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "report", queue = "reports")
    static class ReportMachine {

        @Step("run")
        Outcome run(Order order) {
            return Outcome.done();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OrderMachine.class, ReportMachine.class})
    static class Application {
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        TestPostgres postgres = TestPostgres.get();
        properties.add("spring.datasource.url", postgres::jdbcUrl);
        properties.add("spring.datasource.username", postgres::username);
        properties.add("spring.datasource.password", postgres::password);
        // Behind a transaction pooler the schema is installed over a direct connection, as an application would.
        properties.add("durable.initialize-schema", () -> "false");
    }

    @BeforeAll
    static void installTheSchema() {
        DurableSchema.named("targets_test").migrate(TestPostgres.get().directDataSource());
    }

    private static final Target PAYMENT = Target.timeAtStep("order", "await-payment", Duration.ofHours(24));
    private static final Target REPORTS = Target.oldestRunnableAge("reports", Duration.ofSeconds(30));

    @Autowired
    DurableTestEngine durable;

    @Autowired
    DurableTargets targets;

    @Autowired
    MeterRegistry registry;

    @Autowired
    JdbcTemplate jdbc;

    @Value("${local.server.port}")
    int port;

    @Test
    void aBreachShowsInTheMeterTheActuatorTheHealthAndTheQueryAndClears() throws Exception {
        assertThat(targets.targets()).containsExactly(REPORTS, PAYMENT);
        assertThat(targets.isRunning()).isTrue();
        // From here on the test checks when it wants to, so that no background check overwrites what it reads.
        targets.close();

        long first = durable.client().start(OrderMachine.class, new Order(1)).id();
        long second = durable.client().start(OrderMachine.class, new Order(2)).id();
        durable.runDue();
        assertThat(check(PAYMENT).breaching()).isZero();
        assertThat(gauge("durable.step.target.breaches", "machine", "order", "step", "await-payment")).isZero();

        durable.advance(Duration.ofHours(25));

        TargetCheck late = check(PAYMENT);
        assertThat(late.breaching()).isEqualTo(2);
        assertThat(late.longestWait()).isBetween(Duration.ofHours(25), Duration.ofHours(26));
        assertThat(gauge("durable.step.target.breaches", "machine", "order", "step", "await-payment")).isEqualTo(2);
        JsonNode shown = target(new Http(port).get("/actuator/durable").json(), "time_at_step");
        assertThat(shown.path("breaching").asLong()).isEqualTo(2);
        assertThat(shown.path("limit").asString()).isEqualTo("PT24H");
        assertThat(shown.path("instances").asString())
                .isEqualTo("machine=order&step=await-payment&waitingLongerThan=PT24H");
        assertThat(new Http(port).get("/actuator/durable/instances?" + shown.path("instances").asString()).json()
                .path("instances").findValues("id")).extracting(JsonNode::asLong).containsExactly(first, second);
        JsonNode health = new Http(port).get("/actuator/health/durable").json();
        assertThat(health.path("status").asString()).isEqualTo("UP");
        assertThat(health.path("details").path("targets").toString())
                .contains("order at await-payment: time at step 24h: 2 instances past it, the longest waiting 25h");
        // The query of the breaching instances pages by keyset, like any search.
        List<DurableInstance> page = durable.client().list(PAYMENT.breaching().limit(1));
        assertThat(page).extracting(DurableInstance::id).containsExactly(first);
        assertThat(durable.client().list(PAYMENT.breaching().limit(1).afterId(first)))
                .extracting(DurableInstance::id).containsExactly(second);

        durable.signal(first, "payment", null);
        assertThat(check(PAYMENT).breaching()).isEqualTo(1);
        durable.signal(second, "payment", null);

        assertThat(durable.client().find(second).orElseThrow().status()).isEqualTo(InstanceStatus.DONE);
        assertThat(check(PAYMENT).breached()).isFalse();
        assertThat(gauge("durable.step.target.breaches", "machine", "order", "step", "await-payment")).isZero();
        assertThat(target(new Http(port).get("/actuator/durable").json(), "time_at_step").path("breaching").asLong())
                .isZero();
        assertThat(new Http(port).get("/actuator/health/durable").json().path("details").path("targets").toString())
                .contains("order at await-payment: time at step 24h: none past it");
        assertThat(durable.client().list(PAYMENT.breaching())).isEmpty();
    }

    @Test
    void aQueueWhoseDueInstancesWaitPastItsTargetBreachesItUntilTheyMoveOn() throws Exception {
        targets.close();
        long report = durable.client().start(ReportMachine.class, new Order(3)).id();
        assertThat(check(REPORTS).breaching()).isZero();

        // Nobody runs the queue here: its instance waits, due, while durable's time moves on by a minute.
        jdbc.update("UPDATE targets_test.durable_test_clock SET shift = shift + interval '1 minute'");

        TargetCheck late = check(REPORTS);
        assertThat(late.breaching()).isEqualTo(1);
        assertThat(late.longestWait()).isBetween(Duration.ofMinutes(1), Duration.ofMinutes(2));
        assertThat(gauge("durable.queue.target.breaches", "queue", "reports")).isEqualTo(1);
        assertThat(target(new Http(port).get("/actuator/durable").json(), "oldest_runnable_age").path("instances")
                .asString()).isEqualTo("queue=reports&status=runnable&waitingLongerThan=PT30S");
        assertThat(new Http(port).get("/actuator/health/durable").json().path("status").asString()).isEqualTo("UP");
        assertThat(durable.client().list(REPORTS.breaching())).extracting(DurableInstance::id).containsExactly(report);

        durable.client().cancel(report, "not needed");

        assertThat(check(REPORTS).breached()).isFalse();
        assertThat(gauge("durable.queue.target.breaches", "queue", "reports")).isZero();
        assertThat(durable.client().list(REPORTS.breaching())).isEmpty();
    }

    /** Checks every target, as the background check does, and answers what {@code target} found. */
    private TargetCheck check(Target target) {
        return targets.check().checks().stream().filter(check -> check.target().equals(target)).findFirst()
                .orElseThrow();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    private static JsonNode target(JsonNode durable, String kind) {
        for (JsonNode target : durable.path("targets")) {
            if (target.path("kind").asString().equals(kind)) {
                return target;
            }
        }
        throw new AssertionError("no target of kind " + kind + " in " + durable.path("targets"));
    }
}
