package dev.durable.firstrelease.order;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Step;
import dev.durable.sample.SampleProperties;
import dev.durable.sample.order.Cancellation;
import dev.durable.sample.order.Carrier;
import dev.durable.sample.order.Payment;
import dev.durable.sample.order.Shipment;
import dev.durable.sample.order.Warehouse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The order workflow of the sample's first release, version 1, as it shipped (0e606a1^): {@code reserve} the order's
 * one product, {@code await-payment}, {@code ship}, or {@code cancel} when the payment does not come in time. Only the
 * carrier's call follows today's {@link Carrier}.
 */
@DurableMachine(name = OrderWorkflow.NAME, version = 1, queue = "orders", stepTimeout = "30s")
public class OrderWorkflow {

    public static final String NAME = dev.durable.sample.order.OrderWorkflow.NAME;

    public static final String PAYMENT = dev.durable.sample.order.OrderWorkflow.PAYMENT;

    private final Warehouse warehouse;
    private final Carrier carrier;
    private final ShippedRetry retry = new ShippedRetry(Duration.ofSeconds(1), Duration.ofMinutes(1), 8);
    private final Duration paymentTimeout;

    /**
     * The sample's {@code sample.retry.*} of that release, at the values its {@code application.yml} set: the
     * properties are gone since (the sample sets {@code durable.retry.*}), and this release's hand-written back-off is
     * kept as it shipped.
     */
    private record ShippedRetry(Duration baseDelay, Duration maxDelay, int maxAttempts) {
    }

    OrderWorkflow(Warehouse warehouse, Carrier carrier, SampleProperties properties) {
        this.warehouse = warehouse;
        this.carrier = carrier;
        this.paymentTimeout = properties.payment().timeout();
    }

    @Step(value = "reserve", initial = true)
    Outcome reserve(Order order, StepContext ctx) {
        String reservation = warehouse.reserve(ctx.instanceId(), order.sku(), order.quantity());
        return Outcome.next("await-payment", order.reserved(reservation));
    }

    @Step("await-payment")
    Outcome awaitPayment(Order order, StepContext ctx) {
        if (ctx.timedOut()) {
            return Outcome.next("cancel", order);
        }
        return ctx.awaited(PAYMENT).map(signal -> {
            Payment payment = signal.payload(Payment.class);
            if (payment == null || payment.amountCents() < order.amountCents()) {
                return Outcome.stop("payment " + signal.dedupKey() + " does not cover the order");
            }
            return Outcome.next("ship", order.paid(payment.paymentId()));
        }).orElseGet(() -> Outcome.await(PAYMENT, order, paymentTimeout));
    }

    @Step("cancel")
    Outcome cancel(Order order, StepContext ctx) {
        warehouse.release(ctx.instanceId());
        return Outcome.done(new Cancellation("no payment within " + paymentTimeout,
                String.valueOf(order.reservation())));
    }

    @Step("ship")
    Outcome ship(Order order, StepContext ctx) {
        String tracking = carrier.ship(ctx.instanceId(), order.customerId());
        return Outcome.done(new Shipment(tracking, String.valueOf(order.reservation()),
                String.valueOf(order.paymentId())));
    }

    @OnError
    Outcome onError(Exception error, @Nullable Order order, StepContext ctx) {
        int attempt = ctx.attempt();
        if (attempt + 1 >= retry.maxAttempts()) {
            return Outcome.stop("gave up on step " + ctx.step() + " after " + (attempt + 1) + " attempts: " + error);
        }
        Duration delay = retry.baseDelay().multipliedBy(1L << Math.min(attempt, 20));
        return Outcome.retry(order, delay.compareTo(retry.maxDelay()) > 0 ? retry.maxDelay() : delay);
    }
}
