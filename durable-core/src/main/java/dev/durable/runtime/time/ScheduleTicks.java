package dev.durable.runtime.time;

import dev.durable.MissPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * The ticks of one schedule: Spring's {@link CronExpression} read in the schedule's zone, and which due ticks a
 * fire starts instances for under its {@link MissPolicy}. Pure: the clock is passed in (the database's).
 */
public final class ScheduleTicks {

    /** Where a schedule that will never fire again is parked (cron has no year field, so this is only defensive). */
    static final Instant NEVER = Instant.parse("9999-12-31T23:59:59Z");

    private final CronExpression cron;
    private final ZoneId zone;

    public ScheduleTicks(String cron, String zone) {
        this.cron = CronExpression.parse(cron);
        this.zone = ZoneId.of(zone);
    }

    /** The first tick strictly after {@code instant}. */
    public Instant after(Instant instant) {
        ZonedDateTime next = cron.next(instant.atZone(zone));
        return next == null ? NEVER : next.toInstant();
    }

    /** The first tick at or after {@code instant}. */
    Instant atOrAfter(Instant instant) {
        return after(instant.minusNanos(1));
    }

    /**
     * What firing a schedule standing at tick {@code first} does at {@code now}: ticks within {@code threshold} of
     * now are on time and each starts an instance; earlier ones were missed and follow {@code policy}. At most
     * {@code maxStarts} instances start; the plan's {@code nextFireAt} is then the first tick not yet dealt with,
     * which may still be due (the caller fires again).
     */
    public Plan plan(Instant first, Instant now, Duration threshold, MissPolicy policy, int maxStarts) {
        List<Instant> starts = new ArrayList<>();
        Instant onTimeFrom = now.minus(threshold);
        Instant cursor = first;
        Instant firstMissed = null;
        if (first.isBefore(onTimeFrom)) {
            firstMissed = first;
            switch (policy) {
                case RUN_EACH -> {
                    // every tick starts, missed or not: the on-time loop below does them all
                }
                case RUN_ONCE -> {
                    starts.add(first);
                    cursor = atOrAfter(onTimeFrom);
                }
                case SKIP -> cursor = atOrAfter(onTimeFrom);
            }
        }
        while (!cursor.isAfter(now) && starts.size() < maxStarts) {
            starts.add(cursor);
            cursor = after(cursor);
        }
        return new Plan(List.copyOf(starts), cursor, firstMissed);
    }

    /**
     * @param starts      the ticks to start an instance for, in order
     * @param nextFireAt  where the schedule stands afterwards
     * @param firstMissed the first missed tick, if any tick was missed
     */
    public record Plan(List<Instant> starts, Instant nextFireAt, @Nullable Instant firstMissed) {

        public @Nullable Instant lastStarted() {
            return starts.isEmpty() ? null : starts.get(starts.size() - 1);
        }
    }
}
