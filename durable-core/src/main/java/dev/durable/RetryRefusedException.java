package dev.durable;

/**
 * Thrown by {@link RetryResult#orThrow()} for a retry of a missing instance, or of one that is neither failed nor
 * suspended.
 */
public class RetryRefusedException extends DurableException {

    private final transient RetryResult result;

    public RetryRefusedException(RetryResult result) {
        super(switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> "Retry refused: no instance with id " + result.instanceId();
            default -> "Retry refused: instance " + result.instanceId() + " is " + result.status()
                    + ", neither failed nor suspended";
        });
        this.result = result;
    }

    public RetryResult result() {
        return result;
    }
}
