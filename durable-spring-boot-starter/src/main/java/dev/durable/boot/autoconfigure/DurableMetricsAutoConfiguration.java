package dev.durable.boot.autoconfigure;

import dev.durable.boot.actuate.DurableMetrics;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.runtime.DurableEngine;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the engine's Micrometer meters ({@link DurableMetrics}), when the application has a
 * {@link MeterRegistry}.
 */
@AutoConfiguration(after = DurableAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, DurableEngine.class})
@ConditionalOnBooleanProperty(name = "durable.enabled", matchIfMissing = true)
@ConditionalOnBean({MeterRegistry.class, DurableEngine.class})
@EnableConfigurationProperties(DurableProperties.class)
public final class DurableMetricsAutoConfiguration {

    DurableMetricsAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean
    DurableMetrics durableMetrics(ObjectProvider<DurableEngine> engine, DurableProperties properties,
            ObjectProvider<DurableTargets> targets) {
        return new DurableMetrics(engine::getObject, properties.getMetrics().getQueueDepthRefreshInterval(),
                targets.getIfAvailable());
    }
}
