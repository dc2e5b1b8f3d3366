/**
 * The runtime of one node: {@link dev.durable.runtime.DurableEngine}, its settings and what it reports; everything
 * else here is package-private. Inside, one step's path is a straight line: a {@code QueuePoller} claims rows ->
 * the {@code StepExecutor} runs the step ({@code StepRunner}) -> the {@code Committer} commits the outcome, fenced
 * -> the queue's slot is free again. The {@code Heartbeat} keeps claims alive, the {@code Reaper} returns crashed
 * ones; each runs in a supervised {@code BackgroundLoop}. All SQL lives in the repositories, one per part that runs
 * it ({@code ClaimRepository}, {@code TransitionRepository}, {@code StartRepository}, {@code QueryRepository},
 * {@code SignalRepository}, {@code NodeRepository}), sharing one {@code StatementPlanning} (docs/DESIGN.md, "Where
 * the SQL lives").
 */
@NullMarked
package dev.durable.runtime;

import org.jspecify.annotations.NullMarked;
