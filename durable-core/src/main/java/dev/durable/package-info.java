/**
 * The API a user touches: {@link dev.durable.DurableClient} to start instances and send signals,
 * {@link dev.durable.Outcome} and {@link dev.durable.StepContext} inside steps.
 */
@NullMarked
package dev.durable;

import org.jspecify.annotations.NullMarked;
