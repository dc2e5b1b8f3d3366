package dev.durable.runtime;

import org.jspecify.annotations.Nullable;

/**
 * A queue's cluster-wide limits and their use as this node's last limited pick saw it (docs/DESIGN.md, "Cluster-wide
 * limits"); read without asking the database.
 *
 * @param heldBack  how many of this node's picks of the queue the limits held back since it started
 * @param executing the queue's executing rows on all nodes; null when not known (no pick counted them yet)
 * @param tokens    the tokens the last pick left in the queue's bucket; null without a rate, or before the first pick
 */
public record LimitStatus(ClusterLimits limits, long heldBack, @Nullable Long executing, @Nullable Double tokens) {
}
