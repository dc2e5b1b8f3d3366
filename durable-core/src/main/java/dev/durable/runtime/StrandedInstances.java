package dev.durable.runtime;

import java.time.Instant;

/**
 * Runnable instances of a machine version that no live node runs: they wait, unpicked, until a node registering
 * that version starts (a rollback, a deploy that dropped a version too early, a machine renamed). Found by every
 * node's reaper run; see {@link DurableEngine#stranded()}.
 *
 * @param waiting how many instances are due and waiting
 * @param since   when the longest-waiting of them became due
 */
public record StrandedInstances(String machine, int version, long waiting, Instant since) {
}
