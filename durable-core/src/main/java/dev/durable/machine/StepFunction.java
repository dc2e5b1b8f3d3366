package dev.durable.machine;

import dev.durable.Outcome;
import dev.durable.StepContext;
import org.jspecify.annotations.Nullable;

/** The body of one step: reads the state, does the work, says what happens next. */
@FunctionalInterface
public interface StepFunction<S> {

    Outcome apply(@Nullable S state, StepContext context) throws Exception;
}
