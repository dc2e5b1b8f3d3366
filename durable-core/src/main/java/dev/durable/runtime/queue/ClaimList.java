package dev.durable.runtime.queue;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The claims a queue's owner holds, linked through the claims themselves ({@link HeldClaim#previousHeld},
 * {@link HeldClaim#nextHeld}): adding and removing one allocates nothing, whatever the number held. Not thread-safe:
 * its {@link QueueDecider} owns it.
 *
 * @param <C> the owner's claims
 */
final class ClaimList<C extends HeldClaim> {

    private @Nullable HeldClaim first;
    private int size;

    void add(C claim) {
        claim.previousHeld = null;
        claim.nextHeld = first;
        if (first != null) {
            first.previousHeld = claim;
        }
        first = claim;
        size++;
    }

    void remove(C claim) {
        HeldClaim before = claim.previousHeld;
        HeldClaim after = claim.nextHeld;
        if (before == null) {
            first = after;
        } else {
            before.nextHeld = after;
        }
        if (after != null) {
            after.previousHeld = before;
        }
        claim.previousHeld = null;
        claim.nextHeld = null;
        size--;
    }

    int size() {
        return size;
    }

    /** Every claim, newest first; {@code action} may remove the claim it is given. */
    @SuppressWarnings("unchecked")
    void forEach(Consumer<? super C> action) {
        for (HeldClaim held = first; held != null; ) {
            HeldClaim next = held.nextHeld;
            action.accept((C) held);
            held = next;
        }
    }
}
