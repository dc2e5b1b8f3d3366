/**
 * durable's steps as spans of Micrometer Tracing: the step's span continues or links to the trace stored with its
 * instance (docs/DESIGN.md, "Tracing").
 */
@NullMarked
package dev.durable.boot.tracing;

import org.jspecify.annotations.NullMarked;
