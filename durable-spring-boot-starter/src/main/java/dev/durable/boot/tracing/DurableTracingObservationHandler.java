package dev.durable.boot.tracing;

import dev.durable.observation.StepObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Makes the span of a {@code durable.step} observation the shape docs/DESIGN.md, "Tracing", gives it: a child of the
 * span whose W3C headers the step's context carries (the call that started or woke the instance), or else the root of
 * a new trace, linked to the span the context names (the attempt before a retry, the step before a park, the parent of
 * a child); and it writes the span's own headers into the context, for the engine to store as the link of what runs
 * next. Spring Boot's tracing auto-configuration puts it ahead of its own receiver handler; the client's calls are
 * handled by Micrometer's {@code PropagatingSenderTracingObservationHandler}, which writes their headers.
 */
public class DurableTracingObservationHandler
        extends PropagatingReceiverTracingObservationHandler<StepObservationContext> {

    private static final String TRACEPARENT = "traceparent";

    private final Tracer tracer;
    private final Propagator propagator;

    public DurableTracingObservationHandler(Tracer tracer, Propagator propagator) {
        super(tracer, propagator);
        this.tracer = tracer;
        this.propagator = propagator;
    }

    @Override
    public void onStart(StepObservationContext context) {
        super.onStart(context);
        Span span = getTracingContext(context).getSpan();
        if (span != null) {
            propagator.inject(span.context(), context.own(), Map::put);
        }
    }

    @Override
    public Span.Builder customizeExtractedSpan(StepObservationContext context, Span.Builder builder) {
        if (context.getCarrier() == null || !context.getCarrier().containsKey(TRACEPARENT)) {
            builder.setNoParent(); // a new trace, whatever span the step thread may hold
        }
        TraceContext linked = parse(context.link().get(TRACEPARENT));
        if (linked != null) {
            builder.addLink(new Link(linked));
        }
        return builder;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof StepObservationContext;
    }

    /** A W3C traceparent ({@code 00-<trace id>-<span id>-<flags>}) as a trace context; null if it is not one. */
    private @Nullable TraceContext parse(@Nullable String traceparent) {
        if (traceparent == null) {
            return null;
        }
        String[] parts = traceparent.split("-");
        if (parts.length < 4 || parts[1].isEmpty() || parts[2].isEmpty() || parts[3].length() < 2) {
            return null;
        }
        boolean sampled;
        try {
            sampled = (Integer.parseInt(parts[3].substring(0, 2), 16) & 1) == 1;
        } catch (NumberFormatException e) {
            return null;
        }
        return traceContext(parts[1], parts[2], sampled);
    }

    /** The trace context of a span to link to, built by the tracer. */
    protected TraceContext traceContext(String traceId, String spanId, boolean sampled) {
        return tracer.traceContextBuilder().traceId(traceId).spanId(spanId).sampled(sampled).build();
    }
}
