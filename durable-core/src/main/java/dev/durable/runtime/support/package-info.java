/**
 * Internal: what every part of the runtime shares and that is not SQL. {@code EngineEvents} is where the parts report
 * what happened (to the {@code EngineCounters} behind {@code EngineStats}, and to the user's listener);
 * {@code NodeLifecycle} is the node's state (running, degraded, draining, stopped); {@code BackgroundLoop} runs a part
 * on a supervised thread of its own; {@code StoredValues} and {@code NulCharacters} turn values into what the database
 * stores ("Stored values"). Its classes may be public for the sibling packages; none is API, and
 * {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.support;

import org.jspecify.annotations.NullMarked;
