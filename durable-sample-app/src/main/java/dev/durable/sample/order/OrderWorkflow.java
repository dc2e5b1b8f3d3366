package dev.durable.sample.order;

import dev.durable.Child;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import dev.durable.sample.SampleProperties;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import tools.jackson.databind.node.ObjectNode;

/**
 * The order workflow: {@code reserve} the stock of every line (one {@link ReserveLine} child per line, in parallel),
 * {@code await-payment} until the payment webhook signals, {@code ship} through a flaky carrier, done. A payment that
 * does not arrive within {@code sample.payment.timeout} cancels the order ({@code cancel} gives the stock back). Each
 * step's new state is committed before the next runs, so an order survives any crash of the application; a step that
 * throws (the carrier's call) is retried by the engine's retry policy, {@code durable.retry.*} in
 * {@code application.yml}: exponential back-off with jitter, each wait a durable timer, the order failing once the
 * policy gives up.
 *
 * <p>Version 2: orders have lines. Version 1 had one product per order, reserved by the order itself; its orders still
 * in flight when version 2 is deployed run on version 2, upcast by {@link #linesFromVersion1} (SampleUpgradeTest).
 */
@DurableMachine(name = OrderWorkflow.NAME, version = 2, queue = "orders", stepTimeout = "30s")
// The one signal an order takes: a signal of another name, or whose payload does not read whole as a Payment, is
// refused at the call (the webhook answers 400) and nothing is stored.
@DurableSignal(name = OrderWorkflow.PAYMENT, payload = Payment.class)
// The results, which the steps name only in their bodies, for a native image (durable's hints cover the state, Order,
// from the methods' signatures, and the payload, Payment, from the declared signal).
@RegisterReflectionForBinding({Shipment.class, Cancellation.class})
public class OrderWorkflow {

    /** The machine's name, as instances record it. */
    public static final String NAME = "order";

    /** The signal the payment webhook sends. */
    public static final String PAYMENT = "payment";

    private static final Logger log = LoggerFactory.getLogger(OrderWorkflow.class);

    private final Warehouse warehouse;
    private final Carrier carrier;
    private final Duration paymentTimeout;

    OrderWorkflow(Warehouse warehouse, Carrier carrier, SampleProperties properties) {
        this.warehouse = warehouse;
        this.carrier = carrier;
        this.paymentTimeout = properties.payment().timeout();
    }

    /**
     * Version 1 stored the order's one product as {@code sku} and {@code quantity}: it becomes the order's one line.
     * Everything else version 1 stored (the reservation it made, a payment) is kept as it was.
     */
    @Upcast(fromVersion = 1)
    ObjectNode linesFromVersion1(ObjectNode order) {
        ObjectNode line = order.objectNode();
        line.set("sku", order.remove("sku"));
        line.set("quantity", order.remove("quantity"));
        order.putArray("lines").add(line);
        return order;
    }

    /**
     * Starts one child per line and waits for all of them; once they have ended, goes on if every line is reserved,
     * or gives back what was reserved and fails.
     */
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
        String reservation = lines.stream().map(line -> line.result(String.class)).collect(Collectors.joining(","));
        return Outcome.next("await-payment", order.reserved(reservation));
    }

    @Step("await-payment")
    Outcome awaitPayment(Order order, StepContext ctx) {
        if (ctx.timedOut()) {
            return Outcome.next("cancel", order);
        }
        return ctx.awaited(PAYMENT, Payment.class)
                .map(payment -> payment.amountCents() < order.amountCents()
                        ? Outcome.stop("payment " + payment.paymentId() + " does not cover the order")
                        : Outcome.next("ship", order.paid(payment.paymentId())))
                .orElseGet(() -> Outcome.await(PAYMENT, order, paymentTimeout));
    }

    /**
     * No payment in time: the stock goes back and the order ends cancelled (a late payment is then refused). An order
     * of version 1 reserved its stock itself, under its own id, and has no lines as children.
     */
    @Step("cancel")
    Outcome cancel(Order order, StepContext ctx) {
        ctx.children().forEach(line -> warehouse.release(line.id()));
        warehouse.release(ctx.instanceId());
        log.info("Order {} cancelled: no payment within {}", ctx.instanceId(), paymentTimeout);
        return Outcome.done(new Cancellation("no payment within " + paymentTimeout,
                String.valueOf(order.reservation())));
    }

    @Step("ship")
    Outcome ship(Order order, StepContext ctx) {
        String tracking = carrier.ship(ctx.instanceId(), order.customerId());
        return Outcome.done(new Shipment(tracking, String.valueOf(order.reservation()),
                String.valueOf(order.paymentId())));
    }
}
