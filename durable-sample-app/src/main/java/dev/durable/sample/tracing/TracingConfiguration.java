package dev.durable.sample.tracing;

import dev.durable.runtime.DurableEngine;
import dev.durable.sample.SampleProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The sample's span exporter, which Spring Boot's OpenTelemetry tracing hands every finished span. */
@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

    @Bean
    TraceFile traceFile(SampleProperties properties, ObjectProvider<DurableEngine> engine) {
        return new TraceFile(properties.traces().file(), engine);
    }
}
