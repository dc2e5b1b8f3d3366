package dev.durable;

/** Thrown by {@link SignalResult#orThrow()} for a signal to a missing or terminal instance. */
public class SignalRefusedException extends DurableException {

    private final transient SignalResult result;

    public SignalRefusedException(SignalResult result) {
        super(result.delivery() == SignalResult.Delivery.REFUSED_UNKNOWN_INSTANCE
                ? "Signal refused: no instance with id " + result.instanceId()
                : "Signal refused: instance " + result.instanceId() + " has ended (done, failed or cancelled)");
        this.result = result;
    }

    public SignalResult result() {
        return result;
    }
}
