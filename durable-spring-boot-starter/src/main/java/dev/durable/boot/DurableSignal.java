package dev.durable.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a signal a {@link DurableMachine @DurableMachine} accepts: its name, and the type its payload reads as.
 * Repeatable, one per signal, on the machine's class. Once a machine declares a signal, {@code DurableClient.signal}
 * refuses, at the call and storing nothing, a signal to one of its instances whose name it does not declare, or whose
 * payload does not bind to the declared type; a machine that declares none accepts any signal.
 *
 * <pre>{@code
 * @DurableMachine(name = "order", version = 2)
 * @DurableSignal(name = "payment", payload = Payment.class)
 * @DurableSignal(name = "cancel-request")
 * class OrderWorkflow {
 *
 *     @Step("await-payment")
 *     Outcome awaitPayment(Order order, StepContext ctx) {
 *         return ctx.awaited("payment", Payment.class)
 *                 .map(payment -> Outcome.next("ship", order.paid(payment)))
 *                 .orElseGet(() -> Outcome.await("payment", order));
 *     }
 * }
 * }</pre>
 *
 * On the class rather than on the steps that await them: a signal is accepted whatever step the instance is at (it
 * waits in the inbox until a step reads it, and any step may read it), so what a machine accepts is a property of the
 * machine version, as its state type is. The name may use {@code ${...}} placeholders; a blank or doubled name, or a
 * payload type the application's {@code JsonMapper} cannot read, fails the start naming the bean.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(DurableSignals.class)
public @interface DurableSignal {

    /** The signal's name, as senders and {@code Outcome.await} name it. */
    String name();

    /**
     * The type the payload reads as; {@code Void.class} (the default) for a signal that carries no payload, to which
     * a payload sent is refused.
     */
    Class<?> payload() default Void.class;
}
