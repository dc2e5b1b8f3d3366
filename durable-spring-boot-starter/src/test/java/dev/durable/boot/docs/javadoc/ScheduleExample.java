package dev.durable.boot.docs.javadoc;

import dev.durable.DurableClient;
import dev.durable.Schedule;

/** The javadoc of {@link Schedule}: a schedule created at run time, for the machine of {@link NightlyReport}. */
final class ScheduleExample {

    private ScheduleExample() {
    }

    static void schedule(DurableClient client) {
        Schedule nightly = Schedule.cron("nightly-report", "0 0 2 * * *").zone("Europe/Berlin");
        client.schedule(NightlyReport.class, nightly, null);
    }
}
