/** The first release's order workflow and its state, as version 1 of the sample's machine "order" stored them. */
@NullMarked
package dev.durable.firstrelease.order;

import org.jspecify.annotations.NullMarked;
