package dev.durable.runtime.step;

import dev.durable.InstanceStatus;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.support.StoredValues;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One row to insert into {@code durable_instance}.
 *
 * @param uniqueScope the scope as a PostgreSQL array literal of status labels, e.g. {@code {runnable,executing}}
 */
public record NewInstance(String machine, int version, String step, String stateJson, String queue, short priority,
        @Nullable String partitionKey, long delayMillis, @Nullable String uniqueKey, String uniqueScope,
        @Nullable String correlationKey) {

    /** A row without a correlation key. */
    public NewInstance(String machine, int version, String step, String stateJson, String queue, short priority,
            @Nullable String partitionKey, long delayMillis, @Nullable String uniqueKey, String uniqueScope) {
        this(machine, version, step, stateJson, queue, priority, partitionKey, delayMillis, uniqueKey, uniqueScope,
                null);
    }

    /**
     * The row that starts {@code machine} with {@code state} and {@code options}, every value checked before any SQL
     * runs: a state of the wrong type, or a state or key that cannot be stored, is refused.
     *
     * @param what        names the instance in an error message ("The state for machine orders v1")
     * @param nothingDone what the refusal means for the caller ("nothing was started")
     * @throws IllegalArgumentException           for a state of another type than the machine's
     * @throws dev.durable.UnstorableValueException for a value that cannot be stored faithfully
     */
    public static NewInstance of(MachineDefinition machine, @Nullable Object state, StartOptions options,
            StoredValues values, Supplier<String> what, String nothingDone) {
        if (!machine.acceptsState(state)) {
            throw new IllegalArgumentException("Machine " + machine.describe() + " stores states of type "
                    + machine.stateType().getTypeName() + ", not " + Objects.requireNonNull(state).getClass().getName());
        }
        String stateJson = values.state(machine, state, what, nothingDone);
        StoredValues.checkKey(options.partitionKey(), () -> "The partition key", nothingDone);
        StoredValues.checkKey(options.uniqueKey(), () -> "The unique key", nothingDone);
        StoredValues.checkKey(options.correlationKey(), () -> "The correlation key", nothingDone);
        // A suspended instance is stored as a runnable one (docs/DESIGN.md, "Suspension"): the column's enum has no
        // such label, and the scope holds its key through runnable.
        String scope = options.uniqueScope().stream()
                .filter(status -> status != InstanceStatus.SUSPENDED)
                .map(InstanceStatus::label)
                .sorted()
                .collect(Collectors.joining(",", "{", "}"));
        return new NewInstance(machine.name(), machine.version(), machine.initialStep(), stateJson, machine.queue(),
                options.priority(), options.partitionKey(), options.delay().toMillis(), options.uniqueKey(), scope,
                options.correlationKey());
    }
}
