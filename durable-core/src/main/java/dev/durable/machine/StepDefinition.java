package dev.durable.machine;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a machine.
 *
 * @param name     the name stored in the instance row
 * @param function the step's body
 * @param timeout  how long the step may run before it is interrupted; {@code null} for the machine's default
 * @param source   where the step was declared, for error messages (e.g. a method)
 */
public record StepDefinition(String name, StepFunction<Object> function, @Nullable Duration timeout, String source) {

    public StepDefinition {
        Objects.requireNonNull(name, "step name must not be null");
        Objects.requireNonNull(function, "step function must not be null");
        Objects.requireNonNull(source, "step source must not be null");
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new MachineDefinitionException("Step '" + name + "' (" + source
                    + ") has a timeout of " + timeout + "; it must be positive");
        }
    }
}
