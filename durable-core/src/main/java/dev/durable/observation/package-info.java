/**
 * What durable tells Micrometer Observation: the names, key values and contexts of its observations, and the MDC keys
 * of a running step (docs/DESIGN.md, "Tracing").
 */
@NullMarked
package dev.durable.observation;

import org.jspecify.annotations.NullMarked;
