package dev.durable;

/** Thrown by {@link CancelResult#orThrow()} for a cancel of a missing, done or failed instance. */
public class CancelRefusedException extends DurableException {

    private final transient CancelResult result;

    public CancelRefusedException(CancelResult result) {
        super(result.outcome() == CancelResult.Cancellation.REFUSED_UNKNOWN_INSTANCE
                ? "Cancel refused: no instance with id " + result.instanceId()
                : "Cancel refused: instance " + result.instanceId() + " is " + result.status()
                        + " and stays as it ended");
        this.result = result;
    }

    public CancelResult result() {
        return result;
    }
}
