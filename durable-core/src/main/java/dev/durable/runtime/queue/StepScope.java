package dev.durable.runtime.queue;

import dev.durable.Outcome;
import dev.durable.observation.DurableObservations;
import dev.durable.observation.StepObservationContext;
import dev.durable.runtime.step.ClaimedStep;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * What surrounds one step execution on its step thread (docs/DESIGN.md, "Tracing"): the MDC keys of the step, and its
 * {@value DurableObservations#STEP} observation, in scope while the user's code and its error handler run. Opened
 * just before the step's user code begins, closed as soon as it (and its error handler) end, on the same thread:
 * the keys are removed, so a pooled platform thread or a virtual thread carries nothing into what it runs next.
 * With a no-op registry nothing but the four MDC entries is made.
 */
final class StepScope implements AutoCloseable {

    private final @Nullable Observation observation;
    private final Observation.@Nullable Scope scope;
    private final @Nullable StepObservationContext context;

    private StepScope(@Nullable Observation observation, @Nullable StepObservationContext context) {
        this.observation = observation;
        this.context = context;
        this.scope = observation == null ? null : observation.openScope();
    }

    /** Puts the step's MDC keys and starts its observation, continuing or linking the trace the row carries. */
    static StepScope open(ObservationRegistry registry, ClaimedStep claimed, Map<String, String> parent,
            Map<String, String> link) {
        MDC.put(DurableObservations.INSTANCE, Long.toString(claimed.id()));
        MDC.put(DurableObservations.MACHINE, claimed.machine());
        MDC.put(DurableObservations.STEP_NAME, claimed.step());
        MDC.put(DurableObservations.ATTEMPT, Integer.toString(claimed.attempt()));
        if (registry.isNoop()) {
            return new StepScope(null, null);
        }
        StepObservationContext context = new StepObservationContext(claimed.id(), claimed.machine(),
                claimed.version(), claimed.step(), claimed.queue(), claimed.attempt(), parent, link);
        Observation observation = Observation.createNotStarted(DurableObservations.STEP, () -> context, registry)
                .contextualName(claimed.machine() + " " + claimed.step())
                .lowCardinalityKeyValue(DurableObservations.MACHINE, claimed.machine())
                .lowCardinalityKeyValue(DurableObservations.VERSION, Integer.toString(claimed.version()))
                .lowCardinalityKeyValue(DurableObservations.STEP_NAME, claimed.step())
                .lowCardinalityKeyValue(DurableObservations.QUEUE, claimed.queue())
                .highCardinalityKeyValue(DurableObservations.INSTANCE, Long.toString(claimed.id()))
                .highCardinalityKeyValue(DurableObservations.ATTEMPT, Integer.toString(claimed.attempt()))
                .start();
        return new StepScope(observation, context);
    }

    /** The W3C headers of the step's own span, as a tracing handler wrote them; empty without one. */
    Map<String, String> own() {
        return context == null ? Map.of() : context.own();
    }

    /** Records what the step decided, or the error it died of, before {@link #close()}. */
    void ended(Outcome.@Nullable Kind outcome, @Nullable Throwable error) {
        if (observation == null || context == null) {
            return;
        }
        String kind = outcome == null ? null : outcome.name().toLowerCase(Locale.ROOT);
        context.outcome(kind);
        context.addLowCardinalityKeyValue(KeyValue.of(DurableObservations.OUTCOME, context.outcome()));
        if (error != null) {
            observation.error(error);
        }
    }

    /** Stops the observation, closes its scope and removes the MDC keys. */
    @Override
    public void close() {
        try {
            if (scope != null) {
                scope.close();
            }
            if (observation != null) {
                if (context != null && context.getLowCardinalityKeyValue(DurableObservations.OUTCOME) == null) {
                    context.addLowCardinalityKeyValue(KeyValue.of(DurableObservations.OUTCOME, context.outcome()));
                }
                observation.stop();
            }
        } finally {
            MDC.remove(DurableObservations.INSTANCE);
            MDC.remove(DurableObservations.MACHINE);
            MDC.remove(DurableObservations.STEP_NAME);
            MDC.remove(DurableObservations.ATTEMPT);
        }
    }
}
