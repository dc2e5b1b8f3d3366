package dev.durable;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;
import org.springframework.scheduling.support.CronExpression;

/**
 * A recurring schedule: every tick of its cron expression, in its zone, starts one instance of the machine it
 * belongs to, once in the whole cluster (docs/DESIGN.md, "Recurring schedules"). Checked when built: a bad name,
 * cron expression or zone fails here, naming the value, before anything is written.
 *
 * <pre>{@code
 * Schedule nightly = Schedule.cron("nightly-report", "0 0 2 * * *").zone("Europe/Berlin");
 * client.schedule(NightlyReport.class, nightly, null);
 * }</pre>
 *
 * @param name       unique among all schedules; it names the schedule's row and the instances' unique keys
 * @param cron       a Spring {@link CronExpression}: six fields, seconds first ({@code "0 0 2 * * *"}), or a
 *                   macro such as {@code "@daily"}
 * @param zone       the zone the cron expression is read in (default UTC, so every node reads it alike)
 * @param missPolicy what to do with ticks missed while no node ran the machine (default {@link MissPolicy#RUN_ONCE})
 */
public record Schedule(String name, String cron, ZoneId zone, MissPolicy missPolicy) {

    /** The longest schedule name: it becomes part of a unique key. */
    public static final int MAX_NAME_LENGTH = 200;

    /** The default zone, named as users write it (not as the offset {@code Z}). */
    private static final ZoneId UTC = ZoneId.of("UTC");

    public Schedule {
        Objects.requireNonNull(name, "schedule name must not be null");
        Objects.requireNonNull(cron, "cron expression of schedule '" + name + "' must not be null");
        Objects.requireNonNull(zone, "zone of schedule '" + name + "' must not be null");
        Objects.requireNonNull(missPolicy, "miss policy of schedule '" + name + "' must not be null");
        if (name.isBlank() || !name.equals(name.strip()) || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("Schedule name '" + name + "' must be non-blank, without surrounding"
                    + " whitespace, and at most " + MAX_NAME_LENGTH + " characters");
        }
        CronExpression expression = parse(name, cron);
        if (expression.next(ZonedDateTime.now(zone)) == null) {
            throw new IllegalArgumentException("Cron expression '" + cron + "' of schedule '" + name
                    + "' never fires");
        }
    }

    /** A schedule firing at every tick of {@code cron}, read in UTC, missed ticks run once. */
    public static Schedule cron(String name, String cron) {
        return new Schedule(name, cron, UTC, MissPolicy.RUN_ONCE);
    }

    /** This schedule read in {@code zone}. */
    public Schedule zone(ZoneId zone) {
        return new Schedule(name, cron, zone, missPolicy);
    }

    /**
     * This schedule read in the zone named {@code zone} (a region such as {@code "Europe/Berlin"} or an offset such
     * as {@code "+02:00"}).
     *
     * @throws IllegalArgumentException naming the zone if Java does not know it
     */
    public Schedule zone(String zone) {
        Objects.requireNonNull(zone, "zone of schedule '" + name + "' must not be null");
        try {
            return zone(ZoneId.of(zone));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("Zone '" + zone + "' of schedule '" + name + "' is not a time zone: "
                    + e.getMessage(), e);
        }
    }

    public Schedule missPolicy(MissPolicy missPolicy) {
        return new Schedule(name, cron, zone, missPolicy);
    }

    private static CronExpression parse(String name, String cron) {
        try {
            return CronExpression.parse(cron);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cron expression '" + cron + "' of schedule '" + name
                    + "' is invalid: " + e.getMessage(), e);
        }
    }
}
