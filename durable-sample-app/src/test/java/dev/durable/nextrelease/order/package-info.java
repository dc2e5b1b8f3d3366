/** The next release's order workflow and its state (see the package {@code dev.durable.nextrelease}). */
@NullMarked
package dev.durable.nextrelease.order;

import org.jspecify.annotations.NullMarked;
