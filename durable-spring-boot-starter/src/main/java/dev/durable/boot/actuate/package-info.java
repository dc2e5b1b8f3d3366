/**
 * Operating durable: the {@code durable} actuator endpoint, the {@code durable} health indicator and the engine's
 * Micrometer meters.
 */
@NullMarked
package dev.durable.boot.actuate;

import org.jspecify.annotations.NullMarked;
