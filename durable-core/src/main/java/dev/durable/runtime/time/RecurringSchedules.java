package dev.durable.runtime.time;

import dev.durable.Schedule;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.queue.QueueOwner;
import dev.durable.runtime.queue.QueueOwners;
import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.runtime.support.EngineEvents;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires recurring schedules: every node running a schedule's machine looks for its due ticks and starts an instance
 * per tick, and the fire statement lets exactly one node win each tick (docs/DESIGN.md, "Recurring schedules").
 * Before its first sweep a node writes the schedules its machines declare and deletes the declared schedules they
 * no longer declare. After a sweep the loop sleeps until the next tick, at most one {@code poll-interval}.
 */
public final class RecurringSchedules {

    public static final String NAME = "durable-schedules";

    /** At most this many instances start per fire statement; a longer catch-up goes on at once in another. */
    static final int MAX_STARTS_PER_FIRE = 100;
    /** Fires per sweep before the loop yields (and comes back at once); bounds one sweep's time. */
    private static final int MAX_FIRES_PER_SWEEP = 1000;

    private static final Logger log = LoggerFactory.getLogger(RecurringSchedules.class);

    private final ScheduleRepository schedules;
    private final MachineRegistry machines;
    private final Set<String> machineNames;
    private final EngineEvents events;
    private final QueueOwners owners;
    private final Duration idlePause;
    private final int batchSize;
    private final Duration misfireThreshold;
    private volatile boolean declared;

    public RecurringSchedules(ScheduleRepository schedules, MachineRegistry machines, EngineEvents events,
            QueueOwners owners, Duration idlePause, int batchSize, Duration misfireThreshold) {
        this.schedules = schedules;
        this.machines = machines;
        this.machineNames = new TreeSet<>(machines.all().stream().map(MachineDefinition::name).toList());
        this.events = events;
        this.owners = owners;
        this.idlePause = idlePause;
        this.batchSize = batchSize;
        this.misfireThreshold = misfireThreshold;
    }

    /** One sweep: declares this node's schedules if not done yet, fires every due tick; returns the next pause. */
    public Duration sweep() {
        if (machineNames.isEmpty()) {
            return idlePause;
        }
        if (!declared) {
            declare();
            declared = true;
        }
        int fires = 0;
        List<ScheduleRepository.DueSchedule> due;
        do {
            due = schedules.due(machineNames, batchSize);
            for (ScheduleRepository.DueSchedule schedule : due) {
                fire(schedule);
                fires++;
            }
        } while (!due.isEmpty() && fires < MAX_FIRES_PER_SWEEP);
        if (!due.isEmpty()) {
            return Duration.ZERO;
        }
        // A tick that comes sooner (a schedule written meanwhile, by any node) is found by the probe, which wakes this.
        return BackgroundLoop.pauseUntil(schedules.millisUntilNext(machineNames), QueueOwner.LONGEST_PAUSE);
    }

    /**
     * Writes the schedules this node's machines declare (the highest registered version of each machine speaks for
     * it) and deletes the declared schedules of these machines that no definition declares any more.
     */
    void declare() {
        Instant now = schedules.now();
        List<String> names = new ArrayList<>();
        for (String machine : machineNames) {
            for (Schedule schedule : machines.resolve(machine, null).schedules()) {
                ScheduleTicks ticks = new ScheduleTicks(schedule.cron(), schedule.zone().getId());
                schedules.put(new ScheduleRepository.NewSchedule(schedule.name(), machine, schedule.cron(),
                        schedule.zone().getId(), schedule.missPolicy(), null, true, ticks.after(now)));
                names.add(schedule.name());
            }
        }
        List<String> deleted = schedules.deleteUndeclared(machineNames, names);
        if (!names.isEmpty()) {
            log.info("Declared schedules {}", names);
        }
        if (!deleted.isEmpty()) {
            log.info("Deleted schedules {}: their machines no longer declare them", deleted);
        }
    }

    private void fire(ScheduleRepository.DueSchedule schedule) {
        MachineDefinition machine = machines.resolve(schedule.machine(), null);
        ScheduleTicks ticks = new ScheduleTicks(schedule.cron(), schedule.zone());
        ScheduleTicks.Plan plan = ticks.plan(schedule.nextFireAt(), schedule.now(),
                misfireThreshold, schedule.missPolicy(), MAX_STARTS_PER_FIRE);
        List<String> keys = plan.starts().stream().map(tick -> uniqueKey(schedule.name(), tick)).toList();
        int started = schedules.fire(schedule, plan.nextFireAt(), plan.lastStarted(), keys, machine.version(),
                machine.initialStep(), machine.queue());
        if (started < 0) {
            log.debug("Schedule {} was fired, changed or paused by another node meanwhile", schedule.name());
            return;
        }
        boolean missed = plan.firstMissed() != null;
        if (missed) {
            log.info("Schedule {} missed its ticks from {} (found at {}, more than {} late); policy {}: started {}"
                    + " instances, next tick {}", schedule.name(), plan.firstMissed(), schedule.now(),
                    misfireThreshold, schedule.missPolicy(), started, plan.nextFireAt());
        } else {
            log.debug("Schedule {} fired {} ticks; next tick {}", schedule.name(), started, plan.nextFireAt());
        }
        events.scheduleFired(started, missed);
        if (started > 0) {
            owners.wake(machine.queue());
        }
    }

    /** The unique key of the instance a tick starts: held in every status, so a tick never starts twice. */
    public static String uniqueKey(String schedule, Instant tick) {
        return "schedule:" + schedule + ":" + tick;
    }
}
