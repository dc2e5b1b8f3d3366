package dev.durable.dashboard.app;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The tests' machine on the queue {@value #QUEUE}: pack, then label (which fails at once for a parcel whose name is
 * in {@link #broken}, and otherwise writes the parcel's label into its state, so its history entry holds a patch),
 * then await-pickup until the signal "pickup", then deliver: done.
 */
@DurableMachine(name = "parcel", queue = Parcels.QUEUE)
@Retry(maxAttempts = "1")
public class Parcels {

    public static final String QUEUE = "parcels";
    /** The parcels whose label step throws. */
    public static final Set<String> broken = ConcurrentHashMap.newKeySet();

    /** A parcel; its label is written by the step of that name, and left out of the state until then. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Parcel(String name, @Nullable String label) {

        public Parcel(String name) {
            this(name, null);
        }
    }

    @Step(value = "pack", initial = true)
    Outcome pack(Parcel parcel) {
        return Outcome.next("label", parcel);
    }

    @Step("label")
    Outcome label(Parcel parcel) {
        if (broken.contains(parcel.name())) {
            throw new IllegalStateException("the label printer jammed on " + parcel.name());
        }
        return Outcome.next("await-pickup", new Parcel(parcel.name(), "LBL-" + parcel.name()));
    }

    @Step("await-pickup")
    Outcome awaitPickup(Parcel parcel, StepContext ctx) {
        return ctx.awaited("pickup").map(signal -> Outcome.next("deliver", parcel))
                .orElseGet(() -> Outcome.await("pickup", parcel));
    }

    @Step("deliver")
    Outcome deliver(Parcel parcel) {
        return Outcome.done("delivered " + parcel.name());
    }
}
