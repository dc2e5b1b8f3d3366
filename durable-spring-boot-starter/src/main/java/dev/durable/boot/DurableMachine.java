package dev.durable.boot;

import dev.durable.machine.MachineDefinition;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.stereotype.Component;

/**
 * Declares a bean as a durable machine: its {@link Step @Step} methods are the machine's steps, an optional
 * {@link OnError @OnError} method decides what happens when a step throws, and an optional {@link Retry @Retry} says
 * how its steps are retried otherwise. The class is a {@link Component}, so component scanning picks it up.
 *
 * <pre>{@code
 * @DurableMachine(name = "checkout", version = 1, queue = "checkout")
 * class Checkout {
 *     record State(long orderId) {}
 *
 *     @Step(value = "start", initial = true)
 *     Outcome start(State state, StepContext ctx) {
 *         return Outcome.done();
 *     }
 * }
 * }</pre>
 *
 * <p>Several versions of one machine are separate beans; new instances use the highest version, and an instance
 * finishes on the version it started with. The machine's state type is the type of the state parameter of its
 * methods, which must agree. Attribute values may use {@code ${...}} placeholders.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Component
public @interface DurableMachine {

    /** The machine's name, stored in every instance row. */
    String name();

    /** The machine's version; versions start at 1. */
    int version() default 1;

    /**
     * The queue the machine's instances run on; it must be configured ({@code durable.queues.<name>}). Default:
     * the engine's default queue, which every node works unless configured otherwise.
     */
    String queue() default MachineDefinition.DEFAULT_QUEUE;

    /**
     * How long each step may run before it is interrupted and handled as a failure, e.g. {@code "30s"} or
     * {@code "PT30S"}; empty for the engine-wide {@code durable.step-timeout}.
     */
    String stepTimeout() default "";
}
