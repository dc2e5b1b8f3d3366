package dev.durable.machine;

import dev.durable.DurableException;

/**
 * Why a step could not run or what it returned could not be used: handed to the machine's {@link ErrorHandler}
 * (or recorded as the failure reason when there is none). The subclass says which.
 */
public abstract class StepFailureException extends DurableException {

    protected StepFailureException(String message) {
        super(message);
    }

    protected StepFailureException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The row names a step its machine version does not declare. */
    public static final class UnknownStep extends StepFailureException {
        public UnknownStep(String message) {
            super(message);
        }
    }

    /** The row's state JSON cannot be read as the machine's state type; the JSON stays in the row. */
    public static final class UnreadableState extends StepFailureException {
        public UnreadableState(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The step returned {@code null}, an unknown next step, a state of the wrong type or an unserializable value. */
    public static final class InvalidOutcome extends StepFailureException {
        public InvalidOutcome(String message) {
            super(message);
        }

        public InvalidOutcome(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The step read a signal's payload its machine does not let it read: through {@code StepContext.awaited(name,
     * type)}, a name the machine does not declare, one it declares without a payload, or as a type the declared one is
     * not (docs/DESIGN.md, "Declared signals"). The same code reaches it again on every run, so a retry policy does not
     * retry it.
     */
    public static final class UndeclaredSignal extends StepFailureException {
        public UndeclaredSignal(String message) {
            super(message);
        }
    }

    /** The step ran longer than its timeout and was interrupted. */
    public static final class Timeout extends StepFailureException {
        public Timeout(String message) {
            super(message);
        }

        public Timeout(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
