package dev.durable.machine;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a machine.
 *
 * @param name        the name stored in instance rows
 * @param function    the step's body
 * @param timeout     how long the step may run before it is interrupted; {@code null} for the machine's default
 * @param source      where the step was declared, for error messages (e.g. a method)
 * @param retryPolicy how the step is retried when it fails and the error handler does not decide; {@code null} for
 *                    the machine's (docs/DESIGN.md, "Retry policies")
 */
public record StepDefinition(String name, StepFunction<Object> function, @Nullable Duration timeout, String source,
        @Nullable RetryPolicy retryPolicy) {

    public StepDefinition {
        Objects.requireNonNull(name, "step name must not be null");
        Objects.requireNonNull(function, "step function must not be null");
        Objects.requireNonNull(source, "step source must not be null");
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new MachineDefinitionException("Step '" + name + "' (" + source
                    + ") has a timeout of " + timeout + "; it must be positive");
        }
    }

    /** A step with the machine's retry policy. */
    public StepDefinition(String name, StepFunction<Object> function, @Nullable Duration timeout, String source) {
        this(name, function, timeout, source, null);
    }

    /** This step with its own retry policy ({@code null} for the machine's). */
    public StepDefinition withRetryPolicy(@Nullable RetryPolicy policy) {
        return new StepDefinition(name, function, timeout, source, policy);
    }
}
