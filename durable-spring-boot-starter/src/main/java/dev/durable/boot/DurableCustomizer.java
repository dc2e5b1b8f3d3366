package dev.durable.boot;

import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;

/**
 * Adjusts the auto-configured engine beyond what {@code durable.*} properties say. Every customizer bean is called,
 * in {@link org.springframework.core.annotation.Order order}, after the properties have been applied and before the
 * settings are checked and the engine is built.
 *
 * <pre>{@code
 * @Bean
 * DurableCustomizer durableTuning() {
 *     return (settings, engine) -> settings.reaperBatchSize(500);
 * }
 * }</pre>
 *
 * The engine builder's settings are replaced by the customized {@code settings} afterwards, and its listener by
 * one that calls every {@link dev.durable.runtime.DurableListener} bean: declare listeners as beans rather than
 * setting them here.
 */
@FunctionalInterface
public interface DurableCustomizer {

    /**
     * @param settings the settings mapped from {@code durable.*} properties
     * @param engine   the engine builder, for what settings cannot express (e.g. the executor steps run on)
     */
    void customize(EngineSettings.Builder settings, DurableEngine.Builder engine);
}
