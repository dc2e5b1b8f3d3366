package dev.durable.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@value DurableObservations#STEP} observation (docs/DESIGN.md, "Tracing"). Its carrier holds the
 * W3C headers ({@code traceparent}, {@code tracestate}) the step continues as a child span, empty when the step begins
 * a new trace; {@link #link()} holds those of the span the new trace links to. A tracing handler that starts the
 * step's span writes the span's own headers into {@link #own()}: the engine stores them with the row when the step
 * parks, is retried or starts children, so what runs next links back to it.
 */
public final class StepObservationContext extends ReceiverContext<Map<String, String>> {

    private final long instanceId;
    private final String machine;
    private final int version;
    private final String step;
    private final String queue;
    private final int attempt;
    private final Map<String, String> link;
    private final Map<String, String> own = new HashMap<>(4);
    private String outcome = "none";

    /**
     * @param parent the headers the step's span continues as a child; empty for a new trace
     * @param link   the headers of the span a new trace links to; empty for none
     */
    public StepObservationContext(long instanceId, String machine, int version, String step, String queue,
            int attempt, Map<String, String> parent, Map<String, String> link) {
        super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
        this.instanceId = instanceId;
        this.machine = machine;
        this.version = version;
        this.step = step;
        this.queue = queue;
        this.attempt = attempt;
        this.link = Map.copyOf(link);
        setCarrier(Map.copyOf(parent));
        setRemoteServiceName("durable");
    }

    public long instanceId() {
        return instanceId;
    }

    public String machine() {
        return machine;
    }

    public int version() {
        return version;
    }

    public String step() {
        return step;
    }

    public String queue() {
        return queue;
    }

    public int attempt() {
        return attempt;
    }

    /** The W3C headers of the span this step's new trace links to; empty if it continues a parent or has none. */
    public Map<String, String> link() {
        return link;
    }

    /** Where a tracing handler writes the W3C headers of the step's own span; the engine reads them at the end. */
    public Map<String, String> own() {
        return own;
    }

    /** The outcome's kind, lower case, once the step's user code has decided; {@code none} until then. */
    public String outcome() {
        return outcome;
    }

    /** Sets what the user code decided. */
    public void outcome(@Nullable String kind) {
        this.outcome = kind == null ? "none" : kind;
    }
}
