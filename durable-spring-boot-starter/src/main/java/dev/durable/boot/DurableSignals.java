package dev.durable.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Holds several {@link DurableSignal @DurableSignal} of one machine, written by the compiler. Written by hand with no
 * signal, {@code @DurableSignals({})}, it declares that the machine accepts no signal at all: every signal to one of
 * its instances is refused (a machine with neither accepts any signal).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DurableSignals {

    DurableSignal[] value();
}
