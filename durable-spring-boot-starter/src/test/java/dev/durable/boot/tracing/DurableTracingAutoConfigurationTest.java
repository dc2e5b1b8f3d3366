package dev.durable.boot.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.boot.autoconfigure.DurableTracingAutoConfiguration;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The step's tracing handler is there when the application traces (a Tracer and a Propagator), and only then. */
class DurableTracingAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DurableTracingAutoConfiguration.class));

    @Test
    void withATracerAndAPropagatorTheHandlerIsRegistered() {
        runner.withBean(Tracer.class, SimpleTracer::new).withBean(Propagator.class, () -> Propagator.NOOP)
                .run(context -> assertThat(context).hasSingleBean(DurableTracingObservationHandler.class));
    }

    @Test
    void withoutTracingThereIsNoHandler() {
        runner.run(context -> assertThat(context).doesNotHaveBean(DurableTracingObservationHandler.class));
    }
}
