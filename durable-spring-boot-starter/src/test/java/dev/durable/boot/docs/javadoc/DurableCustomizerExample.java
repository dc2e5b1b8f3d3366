package dev.durable.boot.docs.javadoc;

import dev.durable.boot.DurableCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The javadoc of {@link DurableCustomizer}: a customizer bean. */
@Configuration(proxyBeanMethods = false)
class DurableCustomizerExample {

    @Bean
    DurableCustomizer durableTuning() {
        return (settings, engine) -> settings.reaperBatchSize(500);
    }
}
