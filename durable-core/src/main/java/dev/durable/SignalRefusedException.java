package dev.durable;

/**
 * Thrown by {@link SignalResult#orThrow()} for a signal to a missing or terminal instance, by unique key to no holder,
 * or one its instance's machine does not declare, or whose payload does not bind to the declared type.
 */
public class SignalRefusedException extends DurableException {

    private final transient SignalResult result;

    public SignalRefusedException(SignalResult result) {
        super(message(result));
        this.result = result;
    }

    public SignalResult result() {
        return result;
    }

    private static String message(SignalResult result) {
        if (result.mismatch() != null) {
            return result.mismatch().reason(); // a whole sentence: "Signal 'x' to instance 7 refused: ..."
        }
        return switch (result.delivery()) {
            case REFUSED_UNKNOWN_INSTANCE -> "Signal refused: no instance with id " + result.instanceId();
            case REFUSED_NO_KEY_HOLDER -> "Signal refused: no instance holds the unique key it was sent to";
            case REFUSED_UNDECLARED_SIGNAL -> "Signal refused: the machine of instance " + result.instanceId()
                    + " does not declare it";
            case REFUSED_WRONG_PAYLOAD -> "Signal refused: its payload does not bind to the type the machine of"
                    + " instance " + result.instanceId() + " declares for it";
            default -> "Signal refused: instance " + result.instanceId() + " has ended (done, failed or cancelled)";
        };
    }
}
