package dev.durable;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A recurring schedule as its row stands in {@code durable_schedule}.
 *
 * @param machine     the machine each tick starts an instance of (its highest version on the node that fires it)
 * @param declared    whether the schedule is declared by its machine's definition ({@code @DurableSchedule}); such a
 *                    schedule is written again by every node that starts with the machine, and deleted when the
 *                    machine no longer declares it. False for one created through {@link DurableClient}.
 * @param paused      a paused schedule fires nothing; when resumed it goes on with the next tick after the resume
 * @param nextFireAt  the next tick the schedule will fire
 * @param lastFiredAt the last tick it fired (an instance was started for), if any
 * @param stateJson   the state each tick's instance starts with, as JSON ({@code null} for none)
 */
public record StoredSchedule(String name, String machine, String cron, String zone, MissPolicy missPolicy,
        boolean declared, boolean paused, Instant nextFireAt, @Nullable Instant lastFiredAt,
        @Nullable String stateJson, Instant createdAt, Instant updatedAt) {
}
