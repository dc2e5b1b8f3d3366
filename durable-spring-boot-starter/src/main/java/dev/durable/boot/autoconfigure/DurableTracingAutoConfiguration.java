package dev.durable.boot.autoconfigure;

import dev.durable.boot.tracing.DurableTracingObservationHandler;
import dev.durable.runtime.DurableEngine;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * With Micrometer Tracing on (Spring Boot's tracing auto-configuration made a {@link Tracer} and a {@link Propagator}),
 * the span of each step continues or links to the trace stored with its instance (docs/DESIGN.md, "Tracing"). Ordered
 * ahead of Spring Boot's receiver handler, which would otherwise take the step's context.
 */
@AutoConfiguration(afterName =
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration")
@ConditionalOnClass({DurableEngine.class, Tracer.class, Propagator.class})
public class DurableTracingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({Tracer.class, Propagator.class})
    @Order(Ordered.HIGHEST_PRECEDENCE + 100)
    DurableTracingObservationHandler durableTracingObservationHandler(Tracer tracer, Propagator propagator) {
        return new DurableTracingObservationHandler(tracer, propagator);
    }
}
