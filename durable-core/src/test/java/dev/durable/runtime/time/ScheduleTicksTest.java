package dev.durable.runtime.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.MissPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which ticks a fire starts: on-time ticks always, missed ones (found more than the misfire threshold late) by the
 * miss policy; at most a batch at a time, the rest left due for the next fire.
 */
class ScheduleTicksTest {

    private static final ScheduleTicks EVERY_MINUTE = new ScheduleTicks("0 * * * * *", "UTC");
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    // Ten whole minutes and thirty seconds after T0: T0 .. T0+9m were missed, T0+10m is on time.
    private static final Instant NOW = T0.plus(Duration.ofSeconds(630));
    private static final Duration THRESHOLD = Duration.ofMinutes(1);

    @Test
    void onTimeTicksStartUnderEveryPolicy() {
        for (MissPolicy policy : MissPolicy.values()) {
            ScheduleTicks.Plan plan = EVERY_MINUTE.plan(T0, T0.plusSeconds(5), THRESHOLD, policy, 100);
            assertThat(plan.starts()).as(policy.name()).containsExactly(T0);
            assertThat(plan.nextFireAt()).isEqualTo(T0.plusSeconds(60));
            assertThat(plan.firstMissed()).isNull();
        }
    }

    @Test
    void skipDropsTheMissedTicksAndStartsTheOnTimeOne() {
        ScheduleTicks.Plan plan = EVERY_MINUTE.plan(T0, NOW, THRESHOLD, MissPolicy.SKIP, 100);
        assertThat(plan.starts()).containsExactly(minute(10));
        assertThat(plan.nextFireAt()).isEqualTo(minute(11));
        assertThat(plan.firstMissed()).isEqualTo(T0);
    }

    @Test
    void runOnceStartsOneInstanceForAllMissedTicksKeyedByTheFirst() {
        ScheduleTicks.Plan plan = EVERY_MINUTE.plan(T0, NOW, THRESHOLD, MissPolicy.RUN_ONCE, 100);
        assertThat(plan.starts()).containsExactly(T0, minute(10));
        assertThat(plan.nextFireAt()).isEqualTo(minute(11));
    }

    @Test
    void runEachStartsEveryTickInOrder() {
        ScheduleTicks.Plan plan = EVERY_MINUTE.plan(T0, NOW, THRESHOLD, MissPolicy.RUN_EACH, 100);
        List<Instant> all = new ArrayList<>();
        for (int m = 0; m <= 10; m++) {
            all.add(minute(m));
        }
        assertThat(plan.starts()).containsExactlyElementsOf(all);
        assertThat(plan.nextFireAt()).isEqualTo(minute(11));
    }

    @Test
    void aLongCatchUpStopsAtTheBatchAndLeavesTheRestDue() {
        ScheduleTicks.Plan first = EVERY_MINUTE.plan(T0, NOW, THRESHOLD, MissPolicy.RUN_EACH, 4);
        assertThat(first.starts()).containsExactly(T0, minute(1), minute(2), minute(3));
        assertThat(first.nextFireAt()).isEqualTo(minute(4));

        ScheduleTicks.Plan second = EVERY_MINUTE.plan(first.nextFireAt(), NOW, THRESHOLD, MissPolicy.RUN_EACH, 4);
        assertThat(second.starts()).containsExactly(minute(4), minute(5), minute(6), minute(7));
    }

    @Test
    void ticksAreReadInTheScheduleZoneAcrossADaylightSavingChange() {
        // 02:30 every day in Berlin: on 2026-03-29 clocks jump from 02:00 to 03:00, so that day has no 02:30.
        ScheduleTicks berlin = new ScheduleTicks("0 30 2 * * *", "Europe/Berlin");
        Instant before = Instant.parse("2026-03-28T01:30:00Z"); // 02:30 CET
        assertThat(berlin.after(before)).isEqualTo(Instant.parse("2026-03-30T00:30:00Z")); // 02:30 CEST
        assertThat(berlin.atOrAfter(before)).isEqualTo(before);
    }

    private static Instant minute(int m) {
        return T0.plus(Duration.ofMinutes(m));
    }
}
