package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What a recurring schedule does with the ticks it missed: ticks that fell while no node running its machine was
 * up (or while the database could not be reached) and were found more than the engine's
 * {@code schedule-misfire-threshold} after they fell. Ticks found within the threshold are on time and always start
 * an instance.
 */
public enum MissPolicy {

    /** Missed ticks start nothing; the schedule goes on with its next tick. */
    SKIP,

    /**
     * All missed ticks together start one instance (a catch-up run, keyed by the first missed tick); then the
     * schedule goes on with its next tick. The default: the work is done once, not once per hour of downtime.
     */
    RUN_ONCE,

    /** Every missed tick starts its own instance, in tick order, as if no node had been down. */
    RUN_EACH;

    /** The lower-case name: this constant's one spelling outside Java code, in JSON and the actuator. */
    @JsonValue
    public String label() {
        return Labels.of(this);
    }

    /**
     * The constant spelled {@code label}.
     *
     * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
     */
    @JsonCreator
    public static MissPolicy fromLabel(String label) {
        return Labels.parse(MissPolicy.class, label);
    }
}
