package dev.durable.sample.order;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSignals;
import dev.durable.boot.Step;

/**
 * Reserves the stock of one order line: a child instance of the order, one per line, so the lines are reserved in
 * parallel, on any node, each retried on its own. A product whose SKU starts with {@code SOLD-OUT} is out of stock: the
 * line fails, and the order with it.
 */
@DurableMachine(name = ReserveLine.NAME, version = 1, queue = "orders", stepTimeout = "30s")
@DurableSignals({}) // a line takes no signal: one sent to it is refused
public class ReserveLine {

    /** The machine's name, as instances record it. */
    public static final String NAME = "reserve-line";

    private final Warehouse warehouse;

    ReserveLine(Warehouse warehouse) {
        this.warehouse = warehouse;
    }

    @Step(value = "reserve", initial = true)
    Outcome reserve(Line line, StepContext ctx) {
        if (line.sku().startsWith("SOLD-OUT")) {
            return Outcome.stop("out of stock: " + line.sku());
        }
        return Outcome.done(warehouse.reserve(ctx.instanceId(), line.sku(), line.quantity()));
    }
}
