package dev.durable.boot.docs.starter;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.OnError;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import dev.durable.boot.docs.starter.Shop.Carrier;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.docs.starter.Shop.Payment;
import dev.durable.boot.docs.starter.Shop.Shipment;
import dev.durable.boot.docs.starter.Shop.SoldOutException;
import dev.durable.boot.docs.starter.Shop.Warehouse;

/** The starter's README, section "Write a machine": the machine, as the README shows it. */
@DurableMachine(name = "order", version = 1, queue = "orders")
@Retry(maxAttempts = "8", maxDelay = "2m")      // a step that throws runs up to 8 times, about 1 s, 2 s, 4 s... apart
@DurableSignal(name = "payment", payload = Payment.class)    // the signals it accepts, checked when one is sent
class OrderWorkflow {

    private final Warehouse warehouse;           // beans, injected as into any component
    private final Carrier carrier;

    OrderWorkflow(Warehouse warehouse, Carrier carrier) {
        this.warehouse = warehouse;
        this.carrier = carrier;
    }

    @Step(value = "reserve", initial = true)
    Outcome reserve(Order order, StepContext ctx) {
        return Outcome.next("await-payment", order.reserved(warehouse.reserve(ctx.instanceId(), order.sku())));
    }

    @Step("await-payment")                       // runs again when the awaited signal arrives
    Outcome awaitPayment(Order order, StepContext ctx) {
        return ctx.awaited("payment", Payment.class).map(payment -> Outcome.next("ship", order.paid(payment)))
                .orElseGet(() -> Outcome.await("payment", order));
    }

    @Step("ship")
    Outcome ship(Order order, StepContext ctx) {
        return Outcome.done(new Shipment(carrier.ship(ctx.instanceId(), order)));
    }

    @OnError                                     // a sold-out item is not worth a retry; any other failure: @Retry
    Outcome soldOut(SoldOutException e, Order order) {
        return Outcome.stop("sold out: " + e.sku());
    }
}
