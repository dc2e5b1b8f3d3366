package dev.durable.boot.docs.readme;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.Step;
import dev.durable.boot.docs.readme.Shop.Carrier;
import dev.durable.boot.docs.readme.Shop.Order;
import dev.durable.boot.docs.readme.Shop.Payment;
import dev.durable.boot.docs.readme.Shop.Warehouse;

/** README.md, opening section: the machine. The README leaves out the two beans it uses. */
@DurableMachine(name = "order")
@DurableSignal(name = "payment", payload = Payment.class)   // what it accepts: checked when a signal is sent
class OrderWorkflow {

    private final Warehouse warehouse;
    private final Carrier carrier;

    OrderWorkflow(Warehouse warehouse, Carrier carrier) {
        this.warehouse = warehouse;
        this.carrier = carrier;
    }

    @Step(value = "reserve", initial = true)
    Outcome reserve(Order order) {
        return Outcome.next("await-payment", order.reserved(warehouse.reserve(order.sku())));
    }

    @Step("await-payment")
    Outcome awaitPayment(Order order, StepContext ctx) {
        return ctx.awaited("payment", Payment.class)
                .map(payment -> Outcome.next("ship", order.paid(payment)))
                .orElseGet(() -> Outcome.await("payment", order));   // parked: no thread, no timer held
    }

    @Step("ship")
    Outcome ship(Order order) {
        return Outcome.done(carrier.ship(order));
    }
}
