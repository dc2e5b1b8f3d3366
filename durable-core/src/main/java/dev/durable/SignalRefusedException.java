package dev.durable;

/**
 * Thrown by {@link SignalResult#orThrow()} for a signal to a missing or terminal instance, or by unique key to no
 * holder.
 */
public class SignalRefusedException extends DurableException {

    private final transient SignalResult result;

    public SignalRefusedException(SignalResult result) {
        super(switch (result.delivery()) {
            case REFUSED_UNKNOWN_INSTANCE -> "Signal refused: no instance with id " + result.instanceId();
            case REFUSED_NO_KEY_HOLDER -> "Signal refused: no instance holds the unique key it was sent to";
            default -> "Signal refused: instance " + result.instanceId() + " has ended (done, failed or cancelled)";
        });
        this.result = result;
    }

    public SignalResult result() {
        return result;
    }
}
