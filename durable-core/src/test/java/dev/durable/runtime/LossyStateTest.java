package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.RetryResult;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.StateUpcaster;
import dev.durable.runtime.deploy.DeployClassifier;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 18's deploy, as a new user made it: an order waits for its payment, the application stops, the state's
 * {@code reservation} is renamed {@code reservationId}, and the application starts again as the payment arrives. The
 * engine does not run the step on a state that lost {@code $.reservation} and write the narrowed state back: the
 * instance is suspended (or failed, by setting), its stored row kept as it was, and an upcaster deployed later brings
 * it through with the value carried over (docs/DESIGN.md, "Lossy states" and "Suspension").
 */
class LossyStateTest {

    /** The order's state as the first deploy wrote it. */
    record OrderV1(String id, String reservation) {
    }

    /** The order's state after the rename. */
    record Order(String id, String reservationId) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    /** How often the new code's steps ran. */
    private final AtomicInteger newCodeRuns = new AtomicInteger();

    /** The first deploy: reserve, then wait for the payment, then ship, answering the reservation. */
    private static MachineDefinition firstDeploy() {
        return MachineDefinition.builder("order", 1, OrderV1.class)
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> Outcome.next("pay", order))
                .step("pay", (order, ctx) -> ctx.awaited("payment").isPresent() ? Outcome.next("ship", order)
                        : Outcome.await("payment", order))
                .step("ship", (order, ctx) -> Outcome.done(order.reservation()))
                .build();
    }

    /** The same machine after the rename, at {@code version}, with the upcasters given. */
    private MachineDefinition renamed(int version, StateUpcaster... upcasters) {
        MachineDefinition.Builder<Order> builder = MachineDefinition.builder("order", version, Order.class)
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> Outcome.next("pay", order))
                .step("pay", (order, ctx) -> {
                    newCodeRuns.incrementAndGet();
                    return ctx.awaited("payment").isPresent() ? Outcome.next("ship", order)
                            : Outcome.await("payment", order);
                })
                .step("ship", (order, ctx) -> {
                    newCodeRuns.incrementAndGet();
                    return Outcome.done(order.reservationId());
                });
        for (int k = 0; k < upcasters.length; k++) {
            builder.upcaster(version - upcasters.length + k, upcasters[k]);
        }
        return builder.build();
    }

    /** Carries the renamed property over. */
    private static final StateUpcaster RENAME_RESERVATION = stored -> {
        ObjectNode order = (ObjectNode) stored;
        order.set("reservationId", order.remove("reservation"));
        return order;
    };

    /**
     * The first deploy parks an order on its payment and stops; the payment arrives while no node runs. Returns the
     * order's id; its row is runnable, woken by the payment.
     */
    private long anOrderPaidWhileTheApplicationWasStopped() {
        DurableEngine first = engines.start(firstDeploy());
        long id = first.client().start("order", new OrderV1("o-1", "R-7")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        first.close();
        first.client().signal(id, "payment", 2235, "pay-o-1").orThrow();
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");
        return id;
    }

    /**
     * The row's data, as PostgreSQL's text: every column but the bookkeeping a suspension itself writes (its reason,
     * where it waits, the lease of the claim that found it, and when).
     */
    private static String storedData(long id) {
        return TestDatabase.jdbc().queryForObject("""
                SELECT (to_jsonb(t) - ARRAY['eligible_at', 'suspension', 'last_error', 'lease_owner', 'lease_token',
                                            'lease_expires_at', 'updated_at'])::text
                FROM durable_it.durable_instance t WHERE id = ?""", String.class, id);
    }

    private static String storedState(long id) {
        return TestDatabase.jdbc().queryForObject("SELECT state::text FROM durable_it.durable_instance WHERE id = ?",
                String.class, id);
    }

    /** The deploy of issue 18: the property renamed, the version left at 1. */
    @Test
    void aStateThatWouldLoseAPropertyIsNotRunButSuspendedAndItsRowKeptAsStored() {
        long id = anOrderPaidWhileTheApplicationWasStopped();
        String dataBefore = storedData(id);
        String stateBefore = storedState(id);
        List<String> heard = new CopyOnWriteArrayList<>();
        DurableListener listener = new DurableListener() {
            @Override
            public void instanceSuspended(long instanceId, String machine, int version, String step, String reason) {
                heard.add(instanceId + " " + machine + " v" + version + " " + step + ": " + reason);
            }
        };
        DurableEngine redeployed = engines.start(DurableEngine.builder(TestDatabase.dataSource(),
                MachineRegistry.of(renamed(1))).settings(EngineFixture.fastSettings("redeployed", renamed(1)).build())
                .listener(listener).build());
        DurableClient client = redeployed.client();

        // The node reports a suspension (log, counter, then listener) after its write commits: the wait is for both.
        await().atMost(Duration.ofSeconds(10)).until(() -> client.find(id).orElseThrow().status()
                == InstanceStatus.SUSPENDED && !heard.isEmpty());

        DurableInstance instance = client.find(id).orElseThrow();
        assertThat(instance.lastError()).startsWith("The stored state of order v1 would lose [$.reservation] when"
                + " read as " + Order.class.getName());
        assertThat(instance.step()).isEqualTo("pay");
        assertThat(instance.version()).isEqualTo(1);
        // Nothing ran and nothing was written back: the stored JSON and every column of data are as they were, and
        // the payment still waits in the inbox.
        assertThat(newCodeRuns).hasValue(0);
        assertThat(storedState(id)).isEqualTo(stateBefore).isEqualTo("{\"id\": \"o-1\", \"reservation\": \"R-7\"}");
        assertThat(storedData(id)).isEqualTo(dataBefore);
        assertThat(TestDatabase.jdbc().queryForList("SELECT name FROM durable_it.durable_signal WHERE instance_id = ?"
                + " AND consumed_at IS NULL", String.class, id)).containsExactly("payment");
        assertThat(TestDatabase.row(id)).containsEntry("status", "runnable").containsEntry("eligible_at_text",
                "infinity");
        // Said once: the log, the listener, the counter, the history.
        assertThat(logs.at(Level.WARN)).filteredOn(line -> line.contains("suspended")).singleElement()
                .asString().startsWith("Instance " + id + " (order v1) suspended at step 'pay': The stored state of"
                        + " order v1 would lose [$.reservation]");
        assertThat(heard).singleElement().asString().startsWith(id + " order v1 pay: The stored state");
        assertThat(redeployed.stats().instancesSuspended()).isOne();
        assertThat(client.history(id)).extracting(HistoryEntry::event, HistoryEntry::status).endsWith(
                org.assertj.core.groups.Tuple.tuple(Event.SUSPEND, InstanceStatus.SUSPENDED));
        // The deploy check says the same of this row, from the same preparation (docs/DESIGN.md, "Lossy states").
        DeployCheck.Verdict verdict = new DeployClassifier(MachineRegistry.of(renamed(1)),
                new JacksonJsonCodec()).classify("order", 1, "pay", List.of(stateBefore));
        assertThat(verdict.kind()).isEqualTo(DeployCheck.Verdict.Kind.BINDS_LOSSILY);
        assertThat(verdict.droppedPaths()).containsExactly("$.reservation");
        // It stays so: a reaper run and further polls change nothing.
        redeployed.reapNow();
        assertThat(storedData(id)).isEqualTo(dataBefore);
        assertThat(client.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.SUSPENDED);
    }

    @Test
    void withTheFailSettingTheInstanceFailsInsteadAndItsStateIsKept() {
        long id = anOrderPaidWhileTheApplicationWasStopped();
        String stateBefore = storedState(id);
        DurableEngine redeployed = engines.start("redeployed",
                settings -> settings.lossyState(EngineSettings.LossyState.FAIL), renamed(1));

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));

        DurableInstance instance = redeployed.client().find(id).orElseThrow();
        assertThat(instance.status()).isEqualTo(InstanceStatus.FAILED);
        assertThat(instance.lastError()).contains("would lose [$.reservation]");
        assertThat(newCodeRuns).hasValue(0);
        assertThat(storedState(id)).isEqualTo(stateBefore);
        assertThat(redeployed.stats().instancesSuspended()).isZero();
        assertThat(logs.at(Level.WARN)).filteredOn(line -> line.contains("Instance " + id)).singleElement()
                .asString().contains("failed at step 'pay'");
    }

    /**
     * Once an upcaster that carries the property over is deployed (the version raised to 2), an operator's retry runs
     * the suspended order on it: it completes, with the value carried over, at version 2.
     */
    @Test
    void aRetryAfterAnUpcasterIsDeployedCompletesTheOrderWithTheValueCarriedOver() {
        long id = anOrderPaidWhileTheApplicationWasStopped();
        DurableEngine lossy = engines.start("redeployed", UnaryOperator.identity(), renamed(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> lossy.client().find(id).orElseThrow().status()
                == InstanceStatus.SUSPENDED);
        lossy.close();

        DurableEngine fixed = engines.start("fixed", UnaryOperator.identity(), renamed(2, RENAME_RESERVATION));
        DurableClient client = fixed.client();
        // Suspended, it is not picked by the new node either, until an operator says so.
        fixed.reapNow();
        assertThat(client.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.SUSPENDED);
        assertThat(client.retryFailed(id).outcome()).isEqualTo(RetryResult.Retry.RESUMED);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        DurableInstance done = client.find(id).orElseThrow();
        assertThat(done.result(String.class)).isEqualTo("R-7");
        assertThat(done.version()).isEqualTo(2);
        assertThat(done.state(Order.class)).isEqualTo(new Order("o-1", "R-7"));
        assertThat(storedState(id)).isEqualTo("{\"id\": \"o-1\", \"reservationId\": \"R-7\"}");
        assertThat(client.history(id)).extracting(HistoryEntry::step, HistoryEntry::event).containsExactly(
                org.assertj.core.groups.Tuple.tuple("reserve", Event.NEXT),
                org.assertj.core.groups.Tuple.tuple("pay", Event.AWAIT),
                org.assertj.core.groups.Tuple.tuple("pay", Event.SUSPEND),
                org.assertj.core.groups.Tuple.tuple("pay", Event.RETRY_SUSPENDED),
                org.assertj.core.groups.Tuple.tuple("pay", Event.NEXT),
                org.assertj.core.groups.Tuple.tuple("ship", Event.DONE));
        // The payment was consumed by the step that ran: the suspension consumed nothing.
        assertThat(client.history(id).get(4).signalsConsumed()).hasSize(1);
    }

    /**
     * The author raised the version, but the upcaster forgets the renamed property: the node of version 2 upcasts the
     * row, finds the loss in the upcast state and suspends the row as stored, at version 1.
     */
    @Test
    void anUpcastThatLosesAPropertyIsSuspendedTooAndTheRowStaysAtItsVersion() {
        long id = anOrderPaidWhileTheApplicationWasStopped();
        String dataBefore = storedData(id);
        DurableEngine redeployed = engines.start("redeployed", UnaryOperator.identity(),
                renamed(2, stored -> stored));

        await().atMost(Duration.ofSeconds(10)).until(() -> redeployed.client().find(id).orElseThrow().status()
                == InstanceStatus.SUSPENDED);

        assertThat(redeployed.client().find(id).orElseThrow().lastError()).startsWith("The stored state of order v1,"
                + " upcast to v2, would lose [$.reservation]");
        assertThat(newCodeRuns).hasValue(0);
        assertThat(storedData(id)).isEqualTo(dataBefore).contains("\"machine_version\": 1");
    }

    /** A new instance of the new code loses nothing, and runs as ever. */
    @Test
    void aStateThatLosesNothingRunsAsBefore() {
        DurableEngine engine = engines.start(renamed(1));
        long id = engine.client().start("order", new Order("o-2", "R-8")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        engine.client().signal(id, "payment", 1, null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(engine.client().find(id).orElseThrow().result(String.class)).isEqualTo("R-8");
        assertThat(engine.stats().instancesSuspended()).isZero();
    }
}
