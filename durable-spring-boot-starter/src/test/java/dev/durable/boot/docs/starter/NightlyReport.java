package dev.durable.boot.docs.starter;

import dev.durable.DurableClient;
import dev.durable.MissPolicy;
import dev.durable.Outcome;
import dev.durable.Schedule;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSchedule;
import dev.durable.boot.Step;
import java.time.Instant;

/** The starter's README, section "Schedules": a declared schedule, and schedules managed at run time. */
@DurableMachine(name = "nightly-report")
@DurableSchedule(name = "nightly-report", cron = "${reports.nightly-cron:0 0 2 * * *}", zone = "Europe/Berlin",
        missPolicy = MissPolicy.RUN_ONCE)
class NightlyReport {

    record Report(Instant from) {
    }

    @Step("write")
    Outcome write(Report report, StepContext ctx) {
        return Outcome.done("written by instance " + ctx.instanceId());
    }

    static void manage(DurableClient durable, String customer) {
        durable.schedule(NightlyReport.class, Schedule.cron("report:" + customer, "0 0 6 * * MON")
                .zone("America/New_York").missPolicy(MissPolicy.SKIP), new Report(Instant.EPOCH));
        durable.pauseSchedule("report:" + customer);
        durable.resumeSchedule("report:" + customer);
        durable.deleteSchedule("report:" + customer);
    }
}
