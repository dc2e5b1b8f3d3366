package dev.durable;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/** The status of an instance; stored as the PostgreSQL enum {@code durable_status}. */
public enum InstanceStatus {
    RUNNABLE("runnable"),
    EXECUTING("executing"),
    AWAITING_SIGNAL("awaiting_signal"),
    DONE("done"),
    FAILED("failed");

    /** The statuses an instance can leave again. */
    public static final Set<InstanceStatus> ACTIVE = EnumSet.of(RUNNABLE, EXECUTING, AWAITING_SIGNAL);

    private final String label;

    InstanceStatus(String label) {
        this.label = label;
    }

    /** The label stored in the database. */
    public String label() {
        return label;
    }

    public boolean isTerminal() {
        return this == DONE || this == FAILED;
    }

    public static InstanceStatus fromLabel(String label) {
        return Arrays.stream(values())
                .filter(status -> status.label.equals(label))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown instance status '" + label + "'"));
    }
}
