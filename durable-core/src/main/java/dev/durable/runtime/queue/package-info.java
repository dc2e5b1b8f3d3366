/**
 * Internal: a step's path on threads, from the pick to the end of its claim (docs/DESIGN.md, "The life of a step").
 * Each queue has one {@code QueueOwner}: it alone holds the queue's slots and claims (each a {@code RunningStep}) and
 * decides when to pick and when a claimed row runs, its decisions made by a {@code QueueDecider} that runs no thread,
 * reads no clock and touches no database; every other part only sends it events. Its poller thread claims rows
 * ({@code ClaimRepository}); the {@code StepExecutor} runs their steps on step threads and carries out the owner's
 * other decisions (checks, hand-backs, interrupts); the {@code Committer} writes each outcome fenced on its claim
 * ({@code TransitionRepository}) and tells the step what became of it. The node's views of its claims ask the owners
 * ({@code QueueOwners}). The SQL of the pick and of the outcomes sits here, next to the code that decides with its
 * answer ("Where the SQL lives"). Its classes may be public for the sibling packages; none is API, and
 * {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.queue;

import org.jspecify.annotations.NullMarked;
