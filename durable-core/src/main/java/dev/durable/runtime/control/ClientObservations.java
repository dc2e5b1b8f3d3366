package dev.durable.runtime.control;

import dev.durable.observation.ClientObservationContext;
import dev.durable.observation.DurableObservations;
import dev.durable.runtime.support.TraceHeaders;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The observations of the client's calls that cause work (docs/DESIGN.md, "Tracing"): {@code durable.start},
 * {@code durable.signal}, {@code durable.cancel}, {@code durable.retry}. The call runs inside its observation's scope
 * and is handed the W3C headers a propagating tracing handler wrote for it, encoded for storing
 * (TraceHeaders), or null: with a no-op registry, or no tracing, nothing is made and null is stored.
 */
final class ClientObservations {

    private final ObservationRegistry registry;

    ClientObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    /**
     * Runs {@code call} observed as {@code name}, with the low-cardinality key values given in pairs, and reads
     * {@code result} of what it returned into the {@value DurableObservations#RESULT} key.
     */
    <T> T observe(String name, Function<@Nullable String, T> call, Function<T, String> result, String... keyValues) {
        if (registry.isNoop()) {
            return call.apply(null);
        }
        Supplier<ClientObservationContext> context = () -> new ClientObservationContext(name);
        Observation observation = Observation.createNotStarted(name, context, registry);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            observation.lowCardinalityKeyValue(keyValues[i], keyValues[i + 1]);
        }
        observation.start();
        try (Observation.Scope scope = observation.openScope()) {
            T answer = call.apply(observation.getContext() instanceof ClientObservationContext started
                    ? TraceHeaders.encode(started.getCarrier()) : null);
            observation.lowCardinalityKeyValue(DurableObservations.RESULT, result.apply(answer));
            return answer;
        } catch (RuntimeException | Error e) {
            observation.lowCardinalityKeyValue(DurableObservations.RESULT, "error");
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }
}
