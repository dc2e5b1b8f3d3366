/**
 * The runtime of one node: {@link dev.durable.runtime.DurableEngine}, its settings and what it reports; everything
 * else here is package-private. Inside, one step's path is a straight line, each class calling only the next
 * (docs/DESIGN.md, "The life of a step"):
 * <ol>
 *   <li>a {@code QueuePoller} claims rows ({@code ClaimRepository.pick}), at most as many as its {@code QueueSlots}
 *       may hold, and hands each to the {@code StepExecutor}, which wraps it in a {@code RunningStep} and queues it at
 *       the {@code QueueSlots};</li>
 *   <li>when a {@code QueueSlots.Slot} is free, the row takes it and runs on a step thread ({@code StepRunner} calls
 *       the user's code and turns its {@code Outcome} into a {@code Transition}); the step hands the transition to
 *       the {@code Committer} and gives its slot back, which starts the next waiting row;</li>
 *   <li>the {@code Committer} commits the transition, fenced on the claim, in a group commit
 *       ({@code TransitionRepository}), and calls the step back with its {@code Committer.Result};</li>
 *   <li>the step ends ({@code RunningStep.end()}), which gives back its claim, once; an ended claim wakes the poller
 *       when a pick is worth making. A {@code next} that kept its claim queues the next step on it instead.</li>
 * </ol>
 * The {@code WorkProbe} finds work other nodes made, in one statement per poll interval ({@code ProbeRepository}),
 * and wakes the poller or sweep it concerns.
 * The {@code Heartbeat} keeps claims alive and renews the node's registration ({@code NodeRegistry}); the
 * {@code Reaper} returns crashed claims and the registry looks for stranded instances; {@code AwaitDeadlines} fires
 * the deadlines of parked instances; each runs in a supervised {@code BackgroundLoop}. The {@code DeployGuard} checks
 * at the start whether the node's code can run what is in flight ({@link dev.durable.runtime.DeployCheck}, read by
 * the {@code InFlightRepository}) and may hold the pollers back. All SQL lives in the repositories, one per part that
 * runs it ({@code ClaimRepository}, {@code TransitionRepository}, {@code StartRepository}, {@code QueryRepository},
 * {@code SignalRepository}, {@code NodeRepository}, {@code DeadlineRepository}, {@code ProbeRepository},
 * {@code InFlightRepository}, ...), sharing one {@code StatementPlanning} (docs/DESIGN.md, "Where the SQL lives").
 */
@NullMarked
package dev.durable.runtime;

import org.jspecify.annotations.NullMarked;
