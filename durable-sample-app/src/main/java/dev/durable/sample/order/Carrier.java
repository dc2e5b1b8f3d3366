package dev.durable.sample.order;

import dev.durable.sample.SampleProperties;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.stereotype.Component;

/** A simulated, unreliable carrier API: a share of calls ({@code sample.carrier.failure-rate}) time out. */
@Component
public class Carrier {

    private final double failureRate;

    Carrier(SampleProperties properties) {
        this.failureRate = properties.carrier().failureRate();
    }

    /** Ships an order of {@code customerId}; answers the tracking number. */
    public String ship(long orderId, long customerId) {
        if (ThreadLocalRandom.current().nextDouble() < failureRate) {
            throw new CarrierUnavailableException("carrier API timed out shipping order " + orderId);
        }
        return "TRK-" + orderId + "-" + customerId;
    }

    /** The carrier did not answer. */
    public static class CarrierUnavailableException extends RuntimeException {
        CarrierUnavailableException(String message) {
            super(message);
        }
    }
}
