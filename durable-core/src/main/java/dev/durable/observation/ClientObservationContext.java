package dev.durable.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.HashMap;
import java.util.Map;

/**
 * The context of a client call that causes work: {@value DurableObservations#START}, {@value DurableObservations#SIGNAL},
 * {@value DurableObservations#CANCEL} or {@value DurableObservations#RETRY} (docs/DESIGN.md, "Tracing"). A tracing
 * handler that propagates (Micrometer Tracing's {@code PropagatingSenderTracingObservationHandler}, which Spring Boot
 * registers) writes the call's span as W3C headers into the carrier; the engine stores them with the instance or the
 * signal, and the step the call causes continues them.
 */
public final class ClientObservationContext extends SenderContext<Map<String, String>> {

    private final String operation;

    public ClientObservationContext(String operation) {
        super((carrier, key, value) -> {
            if (carrier != null) {
                carrier.put(key, value);
            }
        }, Kind.PRODUCER);
        this.operation = operation;
        setCarrier(new HashMap<>(4));
        setRemoteServiceName("durable");
    }

    /** The observation's name: {@value DurableObservations#START}, {@value DurableObservations#SIGNAL}, ... */
    public String operation() {
        return operation;
    }
}
