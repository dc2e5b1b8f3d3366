/**
 * The runtime of one node: {@link dev.durable.runtime.DurableEngine}, its settings and what it reports. These are the
 * package's only classes, and its public API (docs/DESIGN.md, "Public API"); the engine's parts live in internal
 * packages, one per concern, each a layer that uses only those before it (an {@code ArchitectureTest} forbids cycles
 * between them, any use of them from outside the runtime, and any use of the engine from them):
 * <ol>
 *   <li>{@code jdbc}: the plumbing every repository shares ({@code StatementPlanning}, {@code DatabaseErrors},
 *       ...);</li>
 *   <li>{@code support}: what every part shares that is not SQL ({@code EngineEvents}, {@code BackgroundLoop},
 *       {@code NodeLifecycle}, {@code StoredValues});</li>
 *   <li>{@code step}: what one step decides, without threads or SQL ({@code ClaimedStep} in, {@code StepRunner},
 *       {@code Transition} out);</li>
 *   <li>{@code queue}: a step's path on threads (docs/DESIGN.md, "The life of a step"): each queue has one
 *       {@code QueueOwner}, which alone holds its slots and claims and decides (its {@code QueueDecider}) when to
 *       pick ({@code ClaimRepository.pick}, on its poller thread) and when a claimed {@code RunningStep} runs; the
 *       {@code StepExecutor} runs it on a step thread, which tells the owner its user code is over and hands its
 *       {@code Transition} to the {@code Committer}; the committer writes it fenced on the claim, in a group commit
 *       ({@code TransitionRepository}), and tells the step, whose owner ends the claim; the node's views of its
 *       claims ask the owners ({@code QueueOwners});</li>
 *   <li>{@code time}, {@code node} and {@code deploy}, side by side: await deadlines and recurring schedules; the
 *       node's registry, {@code Heartbeat}, {@code Reaper} and {@code WorkProbe}; the deploy check
 *       ({@link dev.durable.runtime.DeployCheck}) and the in-flight report it reads;</li>
 *   <li>{@code control}: the client ({@code DefaultDurableClient}): starts, signals, cancels, queries, searches, and
 *       retention.</li>
 * </ol>
 * {@code DurableEngine} assembles the parts and runs their loops. Each concern's SQL sits in its package, in
 * repositories that share the {@code jdbc} package's {@code StatementPlanning} (docs/DESIGN.md, "Where the SQL lives").
 */
@NullMarked
package dev.durable.runtime;

import org.jspecify.annotations.NullMarked;
