package dev.durable.runtime;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A row this node has just claimed: everything its step needs, read in the pick statement itself.
 *
 * @param leaseToken the token of this claim; every write that ends the step is fenced on it
 * @param awaits     the signal name the instance was parked on when it woke, if it was woken by a signal
 * @param inbox      the instance's signals at pick, ordered by arrival
 */
record ClaimedStep(long id, String machine, int version, String step, @Nullable String stateJson,
        @Nullable String awaits, int attempt, long leaseToken, String queue, @Nullable String partitionKey,
        List<SignalRow> inbox) {

    public Claim claim() {
        return new Claim(id, leaseToken);
    }
}
