/**
 * The PostgreSQL schema durable's tables live in: {@link dev.durable.jdbc.DurableSchema} validates its name and
 * installs or upgrades it from the changelog shipped next to it ({@code dev/durable/db/}), which applications running
 * their own migrations may apply as plain SQL instead. The SQL the engine runs against those tables lives with the
 * runtime that runs it, in {@code dev.durable.runtime}.
 */
@NullMarked
package dev.durable.jdbc;

import org.jspecify.annotations.NullMarked;
