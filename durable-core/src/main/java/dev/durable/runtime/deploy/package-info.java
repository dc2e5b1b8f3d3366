/**
 * Internal: whether this node's code can run what is in flight (docs/DESIGN.md, "What is in flight", "The deploy
 * check"). {@code InFlightRepository} reads the unfinished instances by group in one snapshot and
 * {@code InFlightReports} turns that into the public report, with the {@code StateShapes} of sampled states;
 * {@code DeployClassifier} judges one group as the runtime would, {@code DeployVerdicts} every group, and
 * {@code DeployGuard} acts on the verdict when a node starts. Its classes may be public for the sibling packages; none
 * is API, and {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.deploy;

import org.jspecify.annotations.NullMarked;
