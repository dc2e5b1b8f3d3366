package dev.durable;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link Target} found, as {@link DurableClient#checkTargets(java.util.List)} read it.
 *
 * @param target      the target
 * @param breaching   how many instances are past it now (0: none)
 * @param longestWait how long the instance that has waited longest of them has waited; {@code null} when none is
 *                    past the target
 */
public record TargetCheck(Target target, long breaching, @Nullable Duration longestWait) {

    /** Whether any instance is past the target. */
    public boolean breached() {
        return breaching > 0;
    }

    /**
     * E.g. {@code queue orders: oldest runnable age 30s: 3 instances past it, the longest waiting 42.5s}, or
     * {@code ...: none past it}.
     */
    public String describe() {
        if (longestWait == null || breaching == 0) {
            return target.describe() + ": none past it";
        }
        return target.describe() + ": " + breaching + (breaching == 1 ? " instance" : " instances")
                + " past it, the longest waiting " + Target.spoken(longestWait);
    }
}
