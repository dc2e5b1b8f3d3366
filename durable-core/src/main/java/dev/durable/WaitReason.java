package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What an instance that has not ended, or that failed, waits for: a refinement of its {@link InstanceStatus} that puts
 * every such instance in exactly one reason (docs/DESIGN.md, "Counting instances"). {@link DurableClient#countLive()}
 * counts by it; the starter's actuator endpoint and the meter {@code durable.instances} (tag {@code reason}) use its
 * {@linkplain #label() label}, its one spelling outside Java code.
 *
 * <p>A runnable instance is {@link #READY} or waits on a {@link #TIMER}; a parked one ({@code awaiting_signal}) waits
 * for its {@link #CHILDREN}, for signals until a {@link #DEADLINE}, or for a {@link #SIGNAL} alone, in that order of
 * precedence: a join with a deadline is {@code children}, since what it waits for is its children and the deadline
 * only bounds the wait. {@link #EXECUTING}, {@link #SUSPENDED} and {@link #FAILED} are their statuses. Done and
 * cancelled instances wait for nothing and have no reason.
 */
public enum WaitReason {
    /** Runnable and due: it waits only for a node with a free slot to pick it. */
    READY("ready", InstanceStatus.RUNNABLE),
    /**
     * Runnable, due later: a delayed start, a {@code next} with a delay or an instant, a {@code retry}'s back-off, the
     * hand-back after an {@code Error}.
     */
    TIMER("timer", InstanceStatus.RUNNABLE),
    /** A node runs its step now (or ran it and died, until the reaper takes the claim back). */
    EXECUTING("executing", InstanceStatus.EXECUTING),
    /** Parked on one or several signal names, with no deadline: only a signal (or a cancel) moves it. */
    SIGNAL("signal", InstanceStatus.AWAITING_SIGNAL),
    /** Parked on signals with a deadline: a signal wakes it, or the deadline does by itself. */
    DEADLINE("deadline", InstanceStatus.AWAITING_SIGNAL),
    /** Parked on its children (a join, with or without a deadline): their ends wake it. */
    CHILDREN("children", InstanceStatus.AWAITING_SIGNAL),
    /** Not run until an operator retries it ({@link InstanceStatus#SUSPENDED}). */
    SUSPENDED("suspended", InstanceStatus.SUSPENDED),
    /** Ended in failure: it runs again only if an operator retries it. */
    FAILED("failed", InstanceStatus.FAILED);

    private final String label;
    private final InstanceStatus status;

    WaitReason(String label, InstanceStatus status) {
        this.label = label;
        this.status = status;
    }

    /** The reason's spelling in JSON, metric tags and the actuator endpoint, e.g. {@code timer}. */
    @JsonValue
    public String label() {
        return label;
    }

    /** The status of every instance with this reason, as the read API shows it. */
    public InstanceStatus status() {
        return status;
    }

    /**
     * The reason spelled {@code label}.
     *
     * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
     */
    @JsonCreator
    public static WaitReason fromLabel(String label) {
        return Arrays.stream(values())
                .filter(reason -> reason.label.equals(label))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown wait reason '" + label + "'; reasons are "
                        + Arrays.stream(values()).map(WaitReason::label).collect(Collectors.joining(", "))));
    }

    /** The {@linkplain #label() label}, e.g. {@code children}. */
    @Override
    public String toString() {
        return label;
    }
}
