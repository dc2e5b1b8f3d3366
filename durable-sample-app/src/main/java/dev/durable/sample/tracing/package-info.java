/** Where the sample's traces go: a file of one JSON line per span, which needs no collector. */
@NullMarked
package dev.durable.sample.tracing;

import org.jspecify.annotations.NullMarked;
