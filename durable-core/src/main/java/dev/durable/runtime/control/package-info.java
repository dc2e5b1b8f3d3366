/**
 * Internal: the client side of the engine, what an application asks of it. {@code DefaultDurableClient} is the engine's
 * {@code DurableClient}: starts ({@code StartRepository}), signals ({@code SignalRepository}), cancels
 * ({@code CancelRepository}), reads and searches ({@code QueryRepository}, {@code SearchRepository}, rows read as
 * {@code InstanceRow}s) and the operator's retries; {@code Retention} deletes ended instances past their retention
 * ({@code RetentionRepository}, docs/DESIGN.md, "Retention"). Its classes may be public for the sibling packages; none
 * is API, and {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.control;

import org.jspecify.annotations.NullMarked;
