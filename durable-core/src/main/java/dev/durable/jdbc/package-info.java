/**
 * All of durable's SQL, one repository per table, as text blocks with bound parameters, plus the schema and its
 * shipped changelog. Used by the runtime; not meant to be called by applications.
 */
@NullMarked
package dev.durable.jdbc;

import org.jspecify.annotations.NullMarked;
