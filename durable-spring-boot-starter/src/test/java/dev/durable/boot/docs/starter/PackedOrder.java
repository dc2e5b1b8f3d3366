package dev.durable.boot.docs.starter;

import dev.durable.Child;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import java.util.List;

/** The starter's README, section "Children": one child per order line, and the join on all of them. */
@DurableMachine(name = "packed-order", version = 1)
class PackedOrder {

    record Line(String sku, int quantity) {
    }

    record Order(List<Line> lines) {
    }

    @DurableMachine(name = "pack-line", version = 1)
    static class PackLine {

        @Step(value = "pack", initial = true)
        Outcome pack(Line line) {
            return Outcome.done(line.quantity());
        }
    }

    @Step(value = "pack-lines", initial = true)
    Outcome packLines(Order order, StepContext ctx) {
        if (ctx.childrenStarted() == 0) {                       // first run: one child per line, then wait for all
            return Outcome.awaitChildren(order).startingChildren(order.lines().stream()
                    .map(line -> Child.of(PackLine.class, line))
                    .toList());
        }
        List<DurableInstance> lines = ctx.children();          // every one has ended: done, failed or cancelled
        return lines.stream().allMatch(line -> line.status() == InstanceStatus.DONE)
                ? Outcome.next("ship", order)
                : Outcome.stop("lines not packed: " + lines.stream().filter(line -> line.status() != InstanceStatus.DONE)
                        .map(DurableInstance::id).toList());
    }

    @Step("ship")
    Outcome ship(Order order) {
        return Outcome.done();
    }
}
