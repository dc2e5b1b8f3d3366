package dev.durable.boot.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
import dev.durable.observation.DurableObservations;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTraceContext;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shape of a step's span (docs/DESIGN.md, "Tracing"), with Micrometer's test tracer behind the handlers Spring
 * Boot registers and durable's own: a first attempt is a child of the call that started the instance; a step woken by
 * a signal is a child of the signal's call, linked to the step that parked; a retry after its back-off is a new trace
 * linked to the attempt before, not nested in it; a child's first step is a new trace linked to its parent's step.
 */
class StepTracingTest {

    record Order(int id) {
    }

    private final SimpleTracer tracer = new SimpleTracer();
    private final ObservationRegistry registry = ObservationRegistry.create();
    private DurableEngine engine;

    @BeforeEach
    void startEngine() {
        TestDatabase.clean();
        Propagator w3c = new W3cPropagator(tracer);
        registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
                new DurableTracingObservationHandler(tracer, w3c) {
                    @Override
                    protected TraceContext traceContext(String traceId, String spanId, boolean sampled) {
                        return W3cPropagator.context(traceId, spanId);
                    }
                },
                new PropagatingSenderTracingObservationHandler<>(tracer, w3c),
                new PropagatingReceiverTracingObservationHandler<>(tracer, w3c),
                new DefaultTracingObservationHandler(tracer)));
        MachineDefinition traced = MachineDefinition.builder("traced", 1, Order.class)
                .initialStep("reserve")
                .step("reserve", (state, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.next("ship", state)
                        : Outcome.await("paid", state))
                .step("ship", (state, ctx) -> Outcome.done())
                .build();
        MachineDefinition flaky = MachineDefinition.builder("flaky", 1, Order.class)
                .step("charge", (state, ctx) -> {
                    if (ctx.attempt() == 0) {
                        throw new IllegalStateException("gateway down");
                    }
                    return Outcome.done();
                })
                .retryPolicy(RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(50)).jitter(Duration.ZERO)
                        .build())
                .build();
        MachineDefinition family = MachineDefinition.builder("family", 1, Order.class)
                .initialStep("spawn")
                .step("spawn", (state, ctx) -> ctx.childrenStarted() == 0
                        ? Outcome.awaitChildren(state).startingChildren(List.of(Child.of("kid", state)))
                        : Outcome.done())
                .build();
        MachineDefinition kid = MachineDefinition.builder("kid", 1, Order.class)
                .step("play", (state, ctx) -> Outcome.done())
                .build();
        engine = DurableEngine.builder(TestDatabase.DATABASE.dataSource(),
                        MachineRegistry.of(traced, flaky, family, kid))
                .settings(EngineSettings.builder().nodeName("traced").schema(TestDatabase.SCHEMA)
                        .pollInterval(Duration.ofMillis(50)).idlePollInterval(Duration.ofMillis(50)).build())
                .observationRegistry(registry)
                .build();
        engine.start();
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void theFirstAttemptIsAChildOfTheStartAndAWokenStepAChildOfTheSignalLinkedToThePark() {
        DurableClient client = engine.client();
        long id = request("POST /orders", () -> client.start("traced", new Order(1)).id());
        SimpleSpan request = span("POST /orders");
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        SimpleSpan start = span(DurableObservations.START);
        SimpleSpan parked = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("reserve", "0", 1),
                Objects::nonNull);

        assertThat(start.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(start.getParentId()).isEqualTo(request.getSpanId());
        assertThat(parked.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(parked.getParentId()).isEqualTo(start.getSpanId());

        request("POST /payments", () -> client.signal(id, "paid", null, "pay-1"));
        SimpleSpan webhook = span("POST /payments");
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        SimpleSpan signal = span(DurableObservations.SIGNAL);
        SimpleSpan woken = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("reserve", "0", 2),
                Objects::nonNull);
        SimpleSpan ship = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("ship", "0", 1),
                Objects::nonNull);

        assertThat(signal.getTraceId()).isEqualTo(webhook.getTraceId());
        assertThat(woken.getTraceId()).isEqualTo(webhook.getTraceId());
        assertThat(woken.getParentId()).isEqualTo(signal.getSpanId());
        assertThat(woken.getLinks()).anySatisfy(link -> assertLinksTo(link, parked));
        assertThat(ship.getTraceId()).isEqualTo(webhook.getTraceId());
    }

    @Test
    void aRetryAfterItsBackOffIsANewTraceLinkedToTheAttemptBefore() {
        long id = request("POST /charges", () -> engine.client().start("flaky", new Order(2)).id());
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        SimpleSpan first = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("charge", "0", 1),
                Objects::nonNull);
        SimpleSpan retry = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("charge", "1", 1),
                Objects::nonNull);

        assertThat(first.getError()).hasMessage("gateway down");
        assertThat(retry.getTraceId()).isNotEqualTo(first.getTraceId());
        assertThat(retry.getParentId()).isNullOrEmpty();
        assertThat(retry.getLinks()).singleElement().satisfies(link -> assertLinksTo(link, first));
    }

    @Test
    void aChildsFirstStepIsANewTraceLinkedToItsParentsStep() {
        long id = request("POST /families", () -> engine.client().start("family", new Order(3)).id());
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        SimpleSpan spawn = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("spawn", "0", 1),
                Objects::nonNull);
        SimpleSpan play = await().atMost(Duration.ofSeconds(5)).until(() -> stepSpan("play", "0", 1),
                Objects::nonNull);

        assertThat(play.getTraceId()).isNotEqualTo(spawn.getTraceId());
        assertThat(play.getLinks()).anySatisfy(link -> assertLinksTo(link, spawn));
    }

    /**
     * Runs {@code call} as an application's request: an observation, as Spring's HTTP server observation is, whose
     * span the client's call continues. (The test tracer gives ids to the spans it starts itself; a root span started
     * from a builder, as a new trace is, keeps empty ids.)
     */
    private <T> T request(String name, java.util.function.Supplier<T> call) {
        return Observation.createNotStarted(name, registry).observe(call);
    }

    private static void assertLinksTo(Link link, SimpleSpan span) {
        assertThat(link.getTraceContext().traceId()).isEqualTo(span.getTraceId());
        assertThat(link.getTraceContext().spanId()).isEqualTo(span.getSpanId());
    }

    /** The {@code nth} finished span of the step at this attempt, or null if there is none yet. */
    private SimpleSpan stepSpan(String step, String attempt, int nth) {
        List<SimpleSpan> spans = tracer.getSpans().stream()
                .filter(span -> span.getEndTimestamp().toEpochMilli() > 0)
                .filter(span -> step.equals(span.getTags().get(DurableObservations.STEP_NAME))
                        && attempt.equals(span.getTags().get(DurableObservations.ATTEMPT))
                        && span.getTags().containsKey(DurableObservations.OUTCOME))
                .toList();
        return spans.size() < nth ? null : spans.get(nth - 1);
    }

    private SimpleSpan span(String name) {
        List<SimpleSpan> spans = tracer.getSpans().stream().filter(span -> name.equals(span.getName())).toList();
        assertThat(spans).as("spans named " + name).hasSize(1);
        return spans.get(0);
    }

    /** The W3C {@code traceparent} header for the test tracer, as a real propagator would write and read it. */
    private record W3cPropagator(SimpleTracer tracer) implements Propagator {

        @Override
        public List<String> fields() {
            return List.of("traceparent");
        }

        @Override
        public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
            setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
        }

        @Override
        public <C> Span.Builder extract(C carrier, Getter<C> getter) {
            String traceparent = getter.get(carrier, "traceparent");
            Span.Builder builder = tracer.spanBuilder();
            if (traceparent == null) {
                return builder.setNoParent();
            }
            String[] parts = traceparent.split("-");
            return builder.setParent(context(parts[1], parts[2]));
        }

        /** A context of the test tracer, whose context builder keeps no ids. */
        static TraceContext context(String traceId, String spanId) {
            SimpleTraceContext context = new SimpleTraceContext();
            context.setTraceId(traceId);
            context.setSpanId(spanId);
            context.setSampled(true);
            return context;
        }
    }
}
