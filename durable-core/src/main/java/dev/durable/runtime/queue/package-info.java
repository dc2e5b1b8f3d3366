/**
 * Internal: a step's path on threads, from the pick to the end of its claim (docs/DESIGN.md, "The life of a step"): the
 * {@code QueuePoller} claims rows ({@code ClaimRepository}) within what its {@code QueueSlots} may hold; the
 * {@code StepExecutor} wraps each in a {@code RunningStep} (tracked by the node's {@code InFlightSteps}) that waits for
 * a slot and runs on a step thread; the {@code Committer} writes each outcome fenced on its claim
 * ({@code TransitionRepository}) and the step ends, giving back its claim. The SQL of the pick and of the outcomes sits
 * here, next to the code that decides with its answer ("Where the SQL lives"). Its classes may be public for the
 * sibling packages; none is API, and {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from
 * using them.
 */
@NullMarked
package dev.durable.runtime.queue;

import org.jspecify.annotations.NullMarked;
