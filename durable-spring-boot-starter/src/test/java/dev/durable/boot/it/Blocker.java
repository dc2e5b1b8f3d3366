package dev.durable.boot.it;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A machine on queue {@code slow} whose first attempt of a step blocks until the test releases it (or interrupts
 * it); later attempts finish at once. For lease, fencing and shutdown tests.
 */
@DurableMachine(name = "blocker", queue = "slow")
public class Blocker {

    static final Map<Long, CountDownLatch> started = new ConcurrentHashMap<>();
    static final Map<Long, CountDownLatch> releases = new ConcurrentHashMap<>();

    /** Forgets every latch (instance ids restart when the tables are emptied). */
    static void reset() {
        started.clear();
        releases.clear();
    }

    static CountDownLatch started(long id) {
        return started.computeIfAbsent(id, key -> new CountDownLatch(1));
    }

    static CountDownLatch release(long id) {
        return releases.computeIfAbsent(id, key -> new CountDownLatch(1));
    }

    @Step("work")
    Outcome work(String label, StepContext ctx) throws InterruptedException {
        started(ctx.instanceId()).countDown();
        if (ctx.attempt() == 0) {
            release(ctx.instanceId()).await();
        }
        return Outcome.done(label + " finished on attempt " + ctx.attempt());
    }
}
