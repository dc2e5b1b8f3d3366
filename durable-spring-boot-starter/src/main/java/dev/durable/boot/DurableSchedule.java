package dev.durable.boot;

import dev.durable.MissPolicy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a recurring schedule of a {@link DurableMachine @DurableMachine}: every tick of {@link #cron()} starts one
 * instance of the machine, with no state, once in the whole cluster however many nodes run it. The schedule is a row
 * in {@code durable_schedule}, written when a node starts; removing the annotation deletes it at the next start.
 * Repeatable, for several schedules of one machine.
 *
 * <pre>{@code
 * @DurableMachine(name = "nightly-report")
 * @DurableSchedule(name = "nightly-report", cron = "${reports.cron:0 0 2 * * *}", zone = "Europe/Berlin")
 * class NightlyReport {
 *
 *     @Step("write")
 *     Outcome write(Report report, StepContext ctx) {
 *         return Outcome.done(reports.writeFor(ctx.instanceId()));
 *     }
 * }
 * }</pre>
 *
 * Attribute values may use {@code ${...}} placeholders; a bad cron expression or zone fails the start, naming it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(DurableSchedules.class)
public @interface DurableSchedule {

    /** The schedule's name, unique among all schedules; it keys the schedule's row and its instances. */
    String name();

    /**
     * A Spring cron expression: six fields, seconds first ({@code "0 0 2 * * *"} is 02:00 every day), or a macro
     * such as {@code "@daily"}.
     */
    String cron();

    /** The zone the expression is read in, e.g. {@code "Europe/Berlin"}; default UTC. */
    String zone() default "UTC";

    /** What to do with ticks missed while no node ran the machine; default one catch-up instance. */
    MissPolicy missPolicy() default MissPolicy.RUN_ONCE;
}
