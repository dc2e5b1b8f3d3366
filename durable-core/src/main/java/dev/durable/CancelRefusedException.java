package dev.durable;

/**
 * Thrown by {@link CancelResult#orThrow()} for a cancel of a missing, done or failed instance, or by unique key of no
 * holder.
 */
public class CancelRefusedException extends DurableException {

    private final transient CancelResult result;

    public CancelRefusedException(CancelResult result) {
        super(switch (result.outcome()) {
            case REFUSED_UNKNOWN_INSTANCE -> "Cancel refused: no instance with id " + result.instanceId();
            case REFUSED_NO_KEY_HOLDER -> "Cancel refused: no instance holds the unique key it was addressed by";
            default -> "Cancel refused: instance " + result.instanceId() + " is " + result.status()
                    + " and stays as it ended";
        });
        this.result = result;
    }

    public CancelResult result() {
        return result;
    }
}
