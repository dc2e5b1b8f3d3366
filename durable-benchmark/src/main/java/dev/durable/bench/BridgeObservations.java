package dev.durable.bench;

import dev.durable.boot.tracing.DurableTracingObservationHandler;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The registry of {@code bench.observations=bridge}: the handlers a Spring Boot application with Micrometer Tracing's
 * OpenTelemetry bridge has (durable's own first, then the propagating sender and receiver, then the default), over
 * OpenTelemetry's SDK, every span sampled and handed to a batch span processor whose exporter counts and drops them:
 * what a real exporter adds beyond that is its own I/O, not durable's.
 */
final class BridgeObservations {

    /** Spans the exporter was handed, printed with the run so that nobody reads a bridge that made none. */
    static final AtomicLong EXPORTED = new AtomicLong();

    private static final ObservationRegistry REGISTRY = build();

    private BridgeObservations() {
    }

    static ObservationRegistry registry() {
        return REGISTRY;
    }

    private static ObservationRegistry build() {
        SdkTracerProvider provider = SdkTracerProvider.builder().setSampler(Sampler.alwaysOn())
                .addSpanProcessor(BatchSpanProcessor.builder(new CountingExporter()).build())
                .build();
        io.opentelemetry.api.trace.Tracer otel = provider.get("durable-bench");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        OtelTracer tracer = new OtelTracer(otel, current, event -> { },
                new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator = new OtelPropagator(
                ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
                new DurableTracingObservationHandler(tracer, propagator),
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        return registry;
    }

    private static final class CountingExporter implements SpanExporter {

        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            EXPORTED.addAndGet(spans.size());
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
