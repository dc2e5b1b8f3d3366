package dev.durable.boot.autoconfigure;

import dev.durable.boot.actuate.DurableHealthIndicator;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.runtime.DurableEngine;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code durable} {@link DurableHealthIndicator health indicator}; off with
 * {@code management.health.durable.enabled=false}.
 */
@AutoConfiguration(after = DurableAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class, DurableEngine.class})
@ConditionalOnBooleanProperty(name = "durable.enabled", matchIfMissing = true)
public final class DurableHealthContributorAutoConfiguration {

    DurableHealthContributorAutoConfiguration() {
    }

    // Nested, so its health-module condition is only read once the outer class has found that module.
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(DurableEngine.class)
    @ConditionalOnEnabledHealthIndicator("durable")
    static class DurableHealthIndicatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "durableHealthIndicator")
        DurableHealthIndicator durableHealthIndicator(DurableEngine engine, ObjectProvider<DurableTargets> targets) {
            return new DurableHealthIndicator(engine, targets.getIfAvailable());
        }
    }
}
