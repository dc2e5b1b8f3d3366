/**
 * What an application touches to declare durable machines with Spring: {@link dev.durable.boot.DurableMachine},
 * {@link dev.durable.boot.Step} and {@link dev.durable.boot.OnError} on beans, plus the hooks
 * {@link dev.durable.boot.DurableCustomizer} and {@link dev.durable.boot.DurableDataSource}.
 */
@NullMarked
package dev.durable.boot;

import org.jspecify.annotations.NullMarked;
