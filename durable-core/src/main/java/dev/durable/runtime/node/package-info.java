/**
 * Internal: the node among the others (docs/DESIGN.md, "Leases, heartbeat and reaper", "Finding work"). The
 * {@code NodeRegistry} registers the node and looks for stranded instances and schedules ({@code NodeRepository}); the
 * {@code Heartbeat} keeps this node's claims alive; the {@code Reaper} returns the claims of nodes that died; the
 * {@code WorkProbe} finds work other nodes made, in one statement per poll interval ({@code ProbeRepository}), and
 * wakes the poller or sweep it concerns. Its classes may be public for the sibling packages; none is API, and
 * {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.node;

import org.jspecify.annotations.NullMarked;
