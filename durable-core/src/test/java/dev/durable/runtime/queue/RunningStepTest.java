package dev.durable.runtime.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        RunningStep step = step(FIRST);

        assertThat(step.interrupt(InterruptReason.LEASE_LOST)).isTrue();
        step.attach(Thread.currentThread());

        assertThat(Thread.interrupted()).as("the step's thread got the interrupt once attached").isTrue();
        assertThat(step.gone()).as("a lost lease: its step must not start").isTrue();
    }

    @Test
    void anInterruptForTheNextStepOfAnInlineChainDoesNotReachThePreviousStepsThread() {
        earlierStepThread.start();
        RunningStep step = step(FIRST);
        step.attach(earlierStepThread);
        step.detach(); // its user code is over: the outcome goes to the committer
        step.continueWith(claimed("second"));

        assertThat(step.interrupt(InterruptReason.TIMEOUT)).isTrue();

        assertThat(earlierStepThread.isInterrupted()).as("the thread of the previous step, now free for others")
                .isFalse();
        step.attach(Thread.currentThread());
        assertThat(Thread.interrupted()).as("the next step's own thread").isTrue();
        assertThat(step.timedOut()).isTrue();
    }

    @Test
    void noInterruptReachesTheThreadOnceTheStepsUserCodeIsOver() {
        RunningStep writing = step(FIRST);
        writing.attach(Thread.currentThread());
        writing.detach();

        assertThat(writing.interrupt(InterruptReason.TIMEOUT)).isFalse();
        assertThat(writing.interrupt(InterruptReason.SHUTDOWN)).isFalse();

        assertThat(Thread.interrupted()).isFalse();
        assertThat(writing.timedOut()).isFalse();
    }

    @Test
    void theFirstReasonSticks() {
        RunningStep step = step(FIRST);

        assertThat(step.interrupt(InterruptReason.CANCELLED)).isTrue();
        assertThat(step.interrupt(InterruptReason.TIMEOUT)).isFalse();

        assertThat(step.interruptReason()).isEqualTo(InterruptReason.CANCELLED);
        assertThat(step.gone()).isTrue();
    }

    @Test
    void anInlineContinuationMustKeepItsClaim() {
        RunningStep step = step(FIRST);

        assertThatThrownBy(() -> step.continueWith(new ClaimedStep(1, "m", 1, "next",
                "{}", List.of(), false, 0, 8, "q", null, List.of(), ClaimedStep.Family.NONE, null)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("must keep the claim");
    }

    /**
     * The step of a claimed row. Binding interrupts to threads needs neither its queue's owner nor the executor, so
     * the test gives it none.
     */
    @SuppressWarnings("DataFlowIssue")
    private static RunningStep step(ClaimedStep claimed) {
        return new RunningStep(claimed, null, null);
    }

    private static ClaimedStep claimed(String step) {
        return new ClaimedStep(1, "m", 1, step, "{}", List.of(), false, 0, 7, "q", null, List.of(),
                ClaimedStep.Family.NONE, null);
    }
}
