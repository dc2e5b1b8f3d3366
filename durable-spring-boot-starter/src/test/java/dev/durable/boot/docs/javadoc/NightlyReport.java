package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSchedule;
import dev.durable.boot.Step;

/** The javadoc of {@link DurableSchedule}: a machine with a nightly schedule. */
@DurableMachine(name = "nightly-report")
@DurableSchedule(name = "nightly-report", cron = "${reports.cron:0 0 2 * * *}", zone = "Europe/Berlin")
class NightlyReport {

    private final Reports reports = new Reports();

    record Report(String day) {
    }

    /** Writes reports. */
    static final class Reports {
        String writeFor(long instanceId) {
            return "report " + instanceId;
        }
    }

    @Step("write")
    Outcome write(Report report, StepContext ctx) {
        return Outcome.done(reports.writeFor(ctx.instanceId()));
    }
}
