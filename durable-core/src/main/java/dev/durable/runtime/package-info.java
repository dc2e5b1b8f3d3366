/**
 * The runtime of one node: {@link dev.durable.runtime.DurableEngine} and its settings. Inside, one step's path is
 * a straight line: a {@code QueuePoller} claims rows -> the {@code StepExecutor} runs the step ({@code StepRunner})
 * -> the {@code Committer} commits the outcome, fenced -> the queue's slot is free again. The
 * {@code Heartbeat} keeps claims alive, the {@code Reaper} returns crashed ones; each runs in a supervised
 * {@code BackgroundLoop}.
 */
@NullMarked
package dev.durable.runtime;

import org.jspecify.annotations.NullMarked;
