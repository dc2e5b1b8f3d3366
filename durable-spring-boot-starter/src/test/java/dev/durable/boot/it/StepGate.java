package dev.durable.boot.it;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A gate a step waits at until the test opens it, one per instance: the step says it has entered, then holds its
 * claim (and its queue slot) while the test does what it needs to a running step: expire its lease, stop the node.
 * The wait answers interruption, as a well-behaved step does: a step timeout or a node stopping past its grace
 * period ends it with {@link InterruptedException}.
 *
 * <p>The machines that block ({@link Blocker}, {@link ShutdownBlocker}) pass through the application's one gate,
 * a bean of {@link TestApplication}.
 */
public final class StepGate {

    /** How long {@link #awaitEntered(long)} waits for a step to be picked and reach the gate. */
    static final Duration ENTER_TIMEOUT = Duration.ofSeconds(20);

    private final Map<Long, CountDownLatch> entered = new ConcurrentHashMap<>();
    private final Map<Long, CountDownLatch> opened = new ConcurrentHashMap<>();

    /**
     * In the step: says that the step of {@code instanceId} has entered, and waits until the test opens its gate.
     *
     * @throws InterruptedException when the engine interrupts the step
     */
    public void pass(long instanceId) throws InterruptedException {
        // The gate exists before the step says it entered: a test that hears "entered" and then resets or opens
        // the gates must find this one, not miss it and leave the step waiting at one created after.
        CountDownLatch gate = latch(opened, instanceId);
        latch(entered, instanceId).countDown();
        gate.await();
    }

    /** Waits until the step of {@code instanceId} has entered the gate; fails the test if it does not in time. */
    public void awaitEntered(long instanceId) throws InterruptedException {
        if (!latch(entered, instanceId).await(ENTER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("The step of instance " + instanceId + " did not reach the gate within "
                    + ENTER_TIMEOUT);
        }
    }

    /** Lets the step of {@code instanceId} go on, whether it waits at the gate already or gets there later. */
    public void open(long instanceId) {
        latch(opened, instanceId).countDown();
    }

    /**
     * Opens every gate (a step an earlier test left waiting goes on rather than holding its slot for good) and
     * forgets them all: instance ids start again when the tables are emptied.
     */
    public void reset() {
        opened.values().forEach(CountDownLatch::countDown);
        opened.clear();
        entered.clear();
    }

    private static CountDownLatch latch(Map<Long, CountDownLatch> latches, long instanceId) {
        return latches.computeIfAbsent(instanceId, id -> new CountDownLatch(1));
    }
}
