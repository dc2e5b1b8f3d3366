/** What a machine is: its definition (steps, state type, error handler) and the registry of known machines. */
@NullMarked
package dev.durable.machine;

import org.jspecify.annotations.NullMarked;
