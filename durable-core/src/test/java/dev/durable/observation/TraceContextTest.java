package dev.durable.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.DurableEngine;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The trace context a step's observation is given (docs/DESIGN.md, "Tracing"), across parks and nodes: stored with the
 * row or the signal by the call that caused the work, read back by the pick. A propagating tracing handler is stood in
 * for by two handlers that write W3C headers as Micrometer Tracing's do: the client's calls write theirs into the
 * carrier; a step's writes its own span's into {@link StepObservationContext#own()}. Two engines share the database:
 * the step that parks runs on one node, the step the signal wakes may run on the other.
 */
class TraceContextTest {

    record Order(int id) {
    }

    /** What a step's observation was given, and the headers its span wrote. */
    record StepSeen(String step, int attempt, @Nullable String parent, @Nullable String link, String own) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final AtomicLong ids = new AtomicLong(0x1000);
    private final ConcurrentLinkedQueue<StepSeen> steps = new ConcurrentLinkedQueue<>();
    private final Map<String, String> calls = new java.util.concurrent.ConcurrentHashMap<>();
    private final ObservationRegistry registry = ObservationRegistry.create();

    {
        registry.observationConfig().observationHandler(new ObservationHandler<ClientObservationContext>() {
            @Override
            public void onStart(ClientObservationContext context) {
                String traceparent = traceparent(newId(), newId());
                context.getSetter().set(context.getCarrier(), "traceparent", traceparent);
                calls.put(context.operation(), traceparent);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof ClientObservationContext;
            }
        });
        registry.observationConfig().observationHandler(new ObservationHandler<StepObservationContext>() {
            @Override
            public void onStart(StepObservationContext context) {
                String parent = context.getCarrier().get("traceparent");
                String traceId = parent == null ? newId() : parent.split("-")[1];
                String own = traceparent(traceId, newId());
                context.own().put("traceparent", own);
                steps.add(new StepSeen(context.step(), context.attempt(), parent, context.link().get("traceparent"),
                        own));
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof StepObservationContext;
            }
        });
    }

    private static final MachineDefinition TRACED = MachineDefinition.builder("traced", 1, Order.class)
            .initialStep("reserve")
            .step("reserve", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.next("ship", state)
                    : Outcome.await("paid", state))
            .step("ship", (state, ctx) -> Outcome.done())
            .build();

    @Test
    void theFirstStepContinuesTheStartAndTheWokenStepTheSignalLinkedToThePark() {
        DurableClient client = engine("node-a", TRACED).client();
        engine("node-b", TRACED);
        long id = client.start("traced", new Order(1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        StepSeen parked = seen("reserve", 0, 1);

        assertThat(parked.parent()).isEqualTo(calls.get(DurableObservations.START));
        assertThat(parked.link()).isNull();

        client.signal(id, "paid", null, "pay-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        StepSeen woken = seen("reserve", 0, 2);
        StepSeen ship = seen("ship", 0, 1);

        assertThat(woken.parent()).isEqualTo(calls.get(DurableObservations.SIGNAL));
        assertThat(woken.link()).isEqualTo(parked.own());
        assertThat(ship.parent()).isEqualTo(calls.get(DurableObservations.SIGNAL));
        assertThat(TestDatabase.jdbc().queryForObject("SELECT trace_context FROM durable_it.durable_signal"
                + " WHERE instance_id = ?", String.class, id))
                .isEqualTo("traceparent " + calls.get(DurableObservations.SIGNAL));
    }

    @Test
    void aRetryAfterItsBackOffBeginsANewTraceLinkedToTheAttemptBefore() {
        MachineDefinition flaky = MachineDefinition.builder("flaky", 1, Order.class)
                .step("charge", (state, ctx) -> {
                    if (ctx.attempt() == 0) {
                        throw new IllegalStateException("gateway down");
                    }
                    return Outcome.done();
                })
                .retryPolicy(RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(50))
                        .jitter(Duration.ZERO).build())
                .build();
        long id = engine("node-a", flaky).client().start("flaky", new Order(2)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        StepSeen first = seen("charge", 0, 1);
        StepSeen retry = seen("charge", 1, 1);

        assertThat(first.parent()).isEqualTo(calls.get(DurableObservations.START));
        assertThat(retry.parent()).as("a retry is not nested in the attempt before").isNull();
        assertThat(retry.link()).isEqualTo(first.own());
    }

    @Test
    void theStepAnOperatorsRetryRunsContinuesTheRetry() {
        java.util.concurrent.atomic.AtomicBoolean fixed = new java.util.concurrent.atomic.AtomicBoolean();
        MachineDefinition once = MachineDefinition.builder("once", 1, Order.class)
                .step("charge", (state, ctx) -> {
                    if (!fixed.get()) {
                        throw new IllegalStateException("card declined");
                    }
                    return Outcome.done();
                })
                .retryPolicy(RetryPolicy.none())
                .build();
        DurableClient client = engine("node-a", once).client();
        long id = client.start("once", new Order(5)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));

        fixed.set(true);
        client.retryFailed(id);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(seen("charge", 0, 1).parent()).isEqualTo(calls.get(DurableObservations.START));
        assertThat(seen("charge", 0, 2).parent()).isEqualTo(calls.get(DurableObservations.RETRY));
    }

    @Test
    void aChildsFirstStepBeginsANewTraceLinkedToItsParentsStep() {
        MachineDefinition family = MachineDefinition.builder("family", 1, Order.class)
                .step("spawn", (state, ctx) -> ctx.childrenStarted() == 0
                        ? Outcome.awaitChildren(state).startingChildren(List.of(Child.of("kid", state)))
                        : Outcome.done())
                .build();
        MachineDefinition kid = MachineDefinition.builder("kid", 1, Order.class)
                .step("play", (state, ctx) -> Outcome.done())
                .build();
        long id = engine("node-a", family, kid).client().start("family", new Order(3)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        StepSeen spawn = seen("spawn", 0, 1);
        StepSeen play = seen("play", 0, 1);

        assertThat(spawn.parent()).isEqualTo(calls.get(DurableObservations.START));
        assertThat(play.parent()).isNull();
        assertThat(play.link()).isEqualTo(spawn.own());
    }

    @Test
    void withoutTracingNothingIsStored() {
        DurableEngine engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(TRACED))
                .settings(EngineFixture.fastSettings("untraced", TRACED).build())
                .build();
        long id = engines.start(engine).client().start("traced", new Order(4)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        engine.client().signal(id, "paid", null, "pay-4");
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance"
                + " WHERE trace_context IS NOT NULL", Long.class)).isZero();
    }

    private DurableEngine engine(String node, MachineDefinition... machines) {
        DurableEngine engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(machines))
                .settings(EngineFixture.fastSettings(node, machines).build())
                .observationRegistry(registry)
                .build();
        return engines.start(engine);
    }

    /** The {@code nth} observation of this step at this attempt, once there is one. */
    private StepSeen seen(String step, int attempt, int nth) {
        return await().atMost(Duration.ofSeconds(5)).until(() -> {
            List<StepSeen> matching = steps.stream()
                    .filter(seen -> seen.step().equals(step) && seen.attempt() == attempt).toList();
            return matching.size() < nth ? null : matching.get(nth - 1);
        }, Objects::nonNull);
    }

    private String newId() {
        return String.format("%016x", ids.incrementAndGet());
    }

    private static String traceparent(String traceId, String spanId) {
        return "00-" + traceId + "-" + spanId + "-01";
    }
}
