package dev.durable.boot.autoconfigure;

import dev.durable.boot.actuate.DurableEndpoint;
import dev.durable.boot.actuate.DurableEndpointWebExtension;
import dev.durable.boot.actuate.DurableTargets;
import dev.durable.runtime.DurableEngine;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code durable} actuator {@link DurableEndpoint endpoint}, when it is available
 * (exposed, e.g. {@code management.endpoints.web.exposure.include=durable}, and its access is not {@code none}),
 * and of its {@link DurableEndpointWebExtension web extension} when it is exposed over HTTP.
 */
@AutoConfiguration(after = DurableAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, DurableEngine.class})
@ConditionalOnBooleanProperty(name = "durable.enabled", matchIfMissing = true)
public final class DurableEndpointAutoConfiguration {

    DurableEndpointAutoConfiguration() {
    }

    // Nested, so its actuator condition is only read once the outer class has found the actuator.
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(DurableEndpoint.class)
    @EnableConfigurationProperties(DurableEndpointProperties.class)
    static class DurableEndpointConfiguration {

        @Bean
        @ConditionalOnBean(DurableEngine.class)
        @ConditionalOnMissingBean
        DurableEndpoint durableEndpoint(DurableEngine engine, DurableEndpointProperties properties,
                ObjectProvider<DurableTargets> targets) {
            DurableTargets checked = targets.getIfAvailable();
            return new DurableEndpoint(engine, properties.getShowValues(), properties.getRoles(),
                    checked == null ? List.of() : checked.targets());
        }

        @Bean
        @ConditionalOnBean(DurableEndpoint.class)
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
        DurableEndpointWebExtension durableEndpointWebExtension(DurableEndpoint endpoint) {
            return new DurableEndpointWebExtension(endpoint);
        }
    }
}
