package dev.durable.sample.order;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * A simulated warehouse. Reserving is idempotent per order, as a step's side effects must be: a step that re-runs
 * after a crash reserves nothing twice. Public, as is {@link Carrier}, for the next release of the order workflow that
 * the deploy walkthrough's test (DeployWalkthroughTest) runs from another package.
 */
@Component
public class Warehouse {

    private final Map<Long, String> reservations = new ConcurrentHashMap<>();

    public String reserve(long orderId, String sku, int quantity) {
        return reservations.computeIfAbsent(orderId, id -> "RES-" + id + "-" + sku + "x" + quantity);
    }

    /** Gives an order's stock back; idempotent too: releasing twice releases once. */
    public void release(long orderId) {
        reservations.remove(orderId);
    }
}
