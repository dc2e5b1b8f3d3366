@NullMarked
package dev.durable.sample.order;

import org.jspecify.annotations.NullMarked;
