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
 * {@code cancelled}; and {@code suspended}, which the database stores as a runnable row, see {@link #SUSPENDED}).
 * {@link #toString()}
 * returns it, Jackson writes and reads it (also as a map key), and the starter's actuator endpoint, metric tags and
 * logs use it. Only Java code names the constants ({@code InstanceStatus.AWAITING_SIGNAL}).
 */
public enum InstanceStatus {
    RUNNABLE("runnable"),
    EXECUTING("executing"),
    AWAITING_SIGNAL("awaiting_signal"),
    /**
     * Not run, and not picked, until an operator retries it ({@link DurableClient#retryFailed(long)},
     * {@link DurableClient#bulkRetry(InstanceQuery)}): its step could not run without losing data (its stored state
     * would lose properties when read by the code deployed, or its upcast failed), and its last error says why. It is
     * unfinished: it keeps its unique key, its parent waits for it, and it can be signalled and cancelled.
     *
     * <p>Stored as a {@code runnable} row that carries its reason (docs/DESIGN.md, "Suspension"): a unique scope
     * holds its key wherever it holds a runnable instance's, so naming this status in a scope changes nothing.
     */
    SUSPENDED("suspended"),
    DONE("done"),
    FAILED("failed"),
    /** Stopped by {@link DurableClient#cancel(long, String)}: it never runs another step. */
    CANCELLED("cancelled");

    /**
     * The statuses of a running instance, which a unique key's scope must contain: an instance moves back into any of
     * them. A {@link #SUSPENDED} instance, unfinished too, is stored as a runnable one.
     */
    public static final Set<InstanceStatus> ACTIVE = EnumSet.of(RUNNABLE, EXECUTING, AWAITING_SIGNAL);

    /** The statuses of an instance that has not ended: the active ones, and suspended. */
    public static final Set<InstanceStatus> UNFINISHED = EnumSet.of(RUNNABLE, EXECUTING, AWAITING_SIGNAL, SUSPENDED);

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
        return !UNFINISHED.contains(this);
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
