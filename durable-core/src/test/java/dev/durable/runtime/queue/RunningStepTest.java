package dev.durable.runtime.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.runtime.step.ClaimedStep;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An interrupt (timeout, lease lost, shutdown) reaches the thread of the step it is meant for and no other: with a
 * pool of platform threads, the thread that ran a step goes on to run others, and a stray interrupt there would fail
 * an innocent step. Each case is forced in order on one thread, no timing involved.
 */
class RunningStepTest {

    private static final ClaimedStep FIRST = claimed("first");

    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread earlierStepThread = new Thread(() -> {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    });

    @AfterEach
    void clearFlagAndStop() {
        Thread.interrupted();
        done.countDown();
    }

    @Test
    void anInterruptBeforeTheThreadIsAttachedIsDeliveredWhenItIs() {
        RunningStep step = started(FIRST);

        assertThat(step.interrupt(RunningStep.InterruptReason.LEASE_LOST)).isTrue();
        step.attach(Thread.currentThread());

        assertThat(Thread.interrupted()).as("the step's thread got the interrupt once attached").isTrue();
    }

    @Test
    void anInterruptForTheNextStepOfAnInlineChainDoesNotReachThePreviousStepsThread() {
        earlierStepThread.start();
        RunningStep step = started(FIRST);
        step.attach(earlierStepThread);
        assertThat(step.beginCommitting(true)).isTrue();
        step.continueWith(claimed("second"));
        queue.continued(step); // a slot is free: it runs again at once

        assertThat(step.interrupt(RunningStep.InterruptReason.TIMEOUT)).isTrue();

        assertThat(earlierStepThread.isInterrupted()).as("the thread of the previous step, now free for others")
                .isFalse();
        step.attach(Thread.currentThread());
        assertThat(Thread.interrupted()).as("the next step's own thread").isTrue();
    }

    @Test
    void noInterruptReachesTheThreadOnceTheStepWritesItsOutcomeOrHasEnded() {
        RunningStep writing = started(FIRST);
        writing.attach(Thread.currentThread());
        assertThat(writing.beginCommitting(true)).isTrue();
        RunningStep released = started(claimed("released"));
        released.attach(Thread.currentThread());
        assertThat(released.release()).isTrue();
        released.end();

        assertThat(writing.interrupt(RunningStep.InterruptReason.TIMEOUT)).isFalse();
        assertThat(released.interrupt(RunningStep.InterruptReason.SHUTDOWN)).isFalse();

        assertThat(Thread.interrupted()).isFalse();
    }

    private final QueueSlots queue = new QueueSlots(4, 4, () -> { }, step -> { });

    /** A claimed row that has taken a slot of its queue and runs. */
    private RunningStep started(ClaimedStep claimed) {
        RunningStep step = new RunningStep(claimed, queue);
        queue.claimed(step);
        assertThat(step.phase()).isEqualTo(RunningStep.Phase.RUNNING);
        return step;
    }

    private static ClaimedStep claimed(String step) {
        return new ClaimedStep(1, "m", 1, step, "{}", List.of(), false, 0, 7, "q", null, List.of(),
                ClaimedStep.Family.NONE);
    }
}
