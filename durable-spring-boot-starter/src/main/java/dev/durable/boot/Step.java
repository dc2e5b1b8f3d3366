package dev.durable.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A step of a {@link DurableMachine}. The method returns an {@link dev.durable.Outcome} and takes, in any order
 * and each at most once: the machine's state, the {@link dev.durable.StepContext} and the
 * {@link dev.durable.Inbox}. It must be neither private nor static. A step that throws is retried by its
 * {@link Retry @Retry} (the method's, else the machine's, else {@code durable.retry.*}) unless an
 * {@link OnError @OnError} method decides.
 *
 * <pre>{@code
 * @Step(value = "reserve", initial = true, timeout = "10s", formerNames = "hold")
 * Outcome reserve(Order order, StepContext ctx) {
 *     return Outcome.next("pay", order);
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Step {

    /** The step's name, stored in instance rows and named by {@code Outcome.next}; default: the method name. */
    String value() default "";

    /** Whether new instances start at this step; exactly one step is initial unless the machine has only one. */
    boolean initial() default false;

    /**
     * How long this step may run before it is interrupted, e.g. {@code "10s"}; empty for the machine's
     * {@link DurableMachine#stepTimeout()}.
     */
    String timeout() default "";

    /**
     * Names this step had in earlier code, of this version or an older one: a row stored at one of them runs this
     * step, and its commit writes this step's name into the row. A former name may not be the name of a current step,
     * nor be declared twice.
     */
    String[] formerNames() default {};
}
