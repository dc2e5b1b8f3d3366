/** JSON encoding of states, results and signal payloads. */
@NullMarked
package dev.durable.json;

import org.jspecify.annotations.NullMarked;
