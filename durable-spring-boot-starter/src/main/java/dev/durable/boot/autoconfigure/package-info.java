/**
 * Auto-configuration of durable: the engine on the application's {@code DataSource} (machines discovered from
 * {@code @DurableMachine} beans, settings from {@link dev.durable.boot.autoconfigure.DurableProperties}, schema
 * installed before the engine starts, started and stopped with the application context), plus metrics, health
 * and the {@code durable} actuator endpoint, each in an auto-configuration of its own.
 */
@NullMarked
package dev.durable.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
