package dev.durable.nextrelease.order;

import dev.durable.Child;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import dev.durable.sample.SampleProperties;
import dev.durable.sample.order.Cancellation;
import dev.durable.sample.order.Carrier;
import dev.durable.sample.order.Payment;
import dev.durable.sample.order.ReserveLine;
import dev.durable.sample.order.Shipment;
import dev.durable.sample.order.Warehouse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.node.ObjectNode;

/**
 * The sample's order workflow after the change: the same steps, on the state {@link Order} whose {@code reservation}
 * is now {@code reservationId}. Two ways to deploy it, a machine bean each, under the sample's machine name:
 * {@link OrderWorkflowAsItIs}, the change alone (version 2, as the sample's), and {@link OrderWorkflowUpcasting},
 * version 3 with the upcaster that renames the property in the states version 2 stored. (Not nested here: Spring
 * registers the nested component classes of a bean's superclass, which would register both.)
 */
@DurableSignal(name = OrderWorkflow.PAYMENT, payload = Payment.class) // as the sample's, found on the subclasses
public abstract class OrderWorkflow {

    /** The sample's machine name: the instances in flight are the sample's. */
    public static final String NAME = dev.durable.sample.order.OrderWorkflow.NAME;

    /** The signal the payment webhook sends. */
    public static final String PAYMENT = dev.durable.sample.order.OrderWorkflow.PAYMENT;

    private final Warehouse warehouse;
    private final Carrier carrier;
    private final Duration paymentTimeout;

    OrderWorkflow(Warehouse warehouse, Carrier carrier, SampleProperties properties) {
        this.warehouse = warehouse;
        this.carrier = carrier;
        this.paymentTimeout = properties.payment().timeout();
    }

    /** As the sample's: version 1's one product becomes the order's one line. */
    @Upcast(fromVersion = 1)
    ObjectNode linesFromVersion1(ObjectNode order) {
        ObjectNode line = order.objectNode();
        line.set("sku", order.remove("sku"));
        line.set("quantity", order.remove("quantity"));
        order.putArray("lines").add(line);
        return order;
    }

    @Step(value = "reserve", initial = true)
    Outcome reserve(Order order, StepContext ctx) {
        if (ctx.childrenStarted() == 0) {
            return Outcome.awaitChildren(order).startingChildren(order.lines().stream()
                    .map(line -> Child.of(ReserveLine.class, line))
                    .toList());
        }
        List<DurableInstance> lines = ctx.children();
        List<DurableInstance> unreserved = lines.stream()
                .filter(line -> line.status() != InstanceStatus.DONE)
                .toList();
        if (!unreserved.isEmpty()) {
            lines.forEach(line -> warehouse.release(line.id()));
            return Outcome.stop("lines not reserved: " + unreserved.stream()
                    .map(line -> line.id() + " (" + line.lastError() + ")")
                    .collect(Collectors.joining(", ")));
        }
        String reservationId = lines.stream().map(line -> line.result(String.class))
                .collect(Collectors.joining(","));
        return Outcome.next("await-payment", order.reserved(reservationId));
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
        ctx.children().forEach(line -> warehouse.release(line.id()));
        warehouse.release(ctx.instanceId());
        return Outcome.done(new Cancellation("no payment within " + paymentTimeout,
                String.valueOf(order.reservationId())));
    }

    @Step("ship")
    Outcome ship(Order order, StepContext ctx) {
        String tracking = carrier.ship(ctx.instanceId(), order.customerId());
        return Outcome.done(new Shipment(tracking, String.valueOf(order.reservationId()),
                String.valueOf(order.paymentId())));
    }
}
