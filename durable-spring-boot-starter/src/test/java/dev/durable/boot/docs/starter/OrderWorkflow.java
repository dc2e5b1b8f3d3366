package dev.durable.boot.docs.starter;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Step;
import dev.durable.boot.docs.starter.Shop.Carrier;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.docs.starter.Shop.Payment;
import dev.durable.boot.docs.starter.Shop.Shipment;
import dev.durable.boot.docs.starter.Shop.Warehouse;
import java.time.Duration;

/** The starter's README, section "Write a machine": the machine, as the README shows it. */
@DurableMachine(name = "order", version = 1, queue = "orders")
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
        return ctx.awaited("payment").map(signal -> Outcome.next("ship", order.paid(signal.payload(Payment.class))))
                .orElseGet(() -> Outcome.await("payment", order));
    }

    @Step("ship")
    Outcome ship(Order order, StepContext ctx) {
        return Outcome.done(new Shipment(carrier.ship(ctx.instanceId(), order)));
    }

    @OnError                                     // any step that throws; the engine never computes a backoff itself
    Outcome onError(Exception e, Order order, StepContext ctx) {
        return ctx.attempt() < 7 ? Outcome.retry(order, Duration.ofSeconds(1L << ctx.attempt()))
                                 : Outcome.stop(e.toString());
    }
}
