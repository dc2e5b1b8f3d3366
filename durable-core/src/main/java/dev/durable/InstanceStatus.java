package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The status of an instance; stored as the PostgreSQL enum {@code durable_status}.
 *
 * <p>A status has one spelling outside Java code: its {@linkplain #label() label}, lower-case as in the database
 * ({@code runnable}, {@code executing}, {@code awaiting_signal}, {@code done}, {@code failed},
 * {@code cancelled}). {@link #toString()}
 * returns it, Jackson writes and reads it (also as a map key), and the starter's actuator endpoint, metric tags and
 * logs use it. Only Java code names the constants ({@code InstanceStatus.AWAITING_SIGNAL}).
 */
public enum InstanceStatus {
    RUNNABLE("runnable"),
    EXECUTING("executing"),
    AWAITING_SIGNAL("awaiting_signal"),
    DONE("done"),
    FAILED("failed"),
    /** Stopped by {@link DurableClient#cancel(long, String)}: it never runs another step. */
    CANCELLED("cancelled");

    /** The statuses an instance can leave again. */
    public static final Set<InstanceStatus> ACTIVE = EnumSet.of(RUNNABLE, EXECUTING, AWAITING_SIGNAL);

    private final String label;

    InstanceStatus(String label) {
        this.label = label;
    }

    /** The label stored in the database, and the status's spelling in JSON, metrics and the actuator endpoint. */
    @JsonValue
    public String label() {
        return label;
    }

    /** Whether the instance ended: done, failed or cancelled. */
    public boolean isTerminal() {
        return !ACTIVE.contains(this);
    }

    /**
     * The status spelled {@code label}.
     *
     * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them (the constant
     *                                  names such as {@code AWAITING_SIGNAL} are not labels)
     */
    @JsonCreator
    public static InstanceStatus fromLabel(String label) {
        return Arrays.stream(values())
                .filter(status -> status.label.equals(label))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown instance status '" + label
                        + "'; statuses are " + Arrays.stream(values()).map(InstanceStatus::label)
                        .collect(Collectors.joining(", "))));
    }

    /** The {@linkplain #label() label}, e.g. {@code awaiting_signal}. */
    @Override
    public String toString() {
        return label;
    }
}
