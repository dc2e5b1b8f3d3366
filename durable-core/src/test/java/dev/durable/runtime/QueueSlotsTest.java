package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A queue's slots have one owner: the counters change only through a slot, a slot is released once however many
 * times its step's end is reached, and a released slot wakes the poller only when a pick is worth making.
 */
class QueueSlotsTest {

    private final AtomicInteger wakes = new AtomicInteger();
    private final QueueSlots slots = new QueueSlots(4, 3, wakes::incrementAndGet);

    @Test
    void aSlotMovesThroughRunningCommittingAndFreeAndIsReleasedOnce() {
        QueueSlots.Slot slot = slots.take();
        assertThat(counts()).containsExactly(3, 1, 0);

        slot.committing();
        assertThat(counts()).containsExactly(3, 0, 1);

        slot.release();
        slot.release();
        slot.committing();
        assertThat(counts()).as("a second release and a late call change nothing").containsExactly(4, 0, 0);
        assertThat(slot.isReleased()).isTrue();
    }

    @Test
    void anInlineContinuationKeepsItsSlot() {
        QueueSlots.Slot slot = slots.take();
        slot.committing();
        slot.continued();

        assertThat(counts()).containsExactly(3, 1, 0);
        assertThat(wakes).hasValue(0);
    }

    @Test
    void releasesWakeThePollerForTheFirstFreeSlotTheLastCommittingOneAndAFullBatch() {
        List<QueueSlots.Slot> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            QueueSlots.Slot slot = slots.take();
            slot.committing();
            taken.add(slot);
        }

        taken.get(0).release(); // the first free slot: the poller, asleep with every slot taken, must hear of it
        assertThat(wakes).hasValue(1);
        taken.get(1).release(); // 2 free, 2 committing: the woken poller is already gathering them
        assertThat(wakes).hasValue(1);
        taken.get(2).release(); // 3 free: a batch
        assertThat(wakes).hasValue(2);
        taken.get(3).release(); // the last committing one
        assertThat(wakes).hasValue(3);
    }

    @Test
    void aSlotReleasedWithoutCommittingWakesThePollerAtOnce() {
        slots.take().release();

        assertThat(wakes).hasValue(1);
    }

    @Test
    void thePollerCannotTakeMoreSlotsThanAreFree() {
        for (int i = 0; i < 4; i++) {
            slots.take();
        }
        assertThatThrownBy(slots::take).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no free slot");
        assertThat(slots.free()).isZero();
    }

    /** Every way a step ends goes through RunningStep.end(): reaching it twice (a race of two enders) frees once. */
    @Test
    void aStepEndedTwiceFreesItsSlotOnce() throws InterruptedException {
        RunningStep step = new RunningStep(new ClaimedStep(1, "m", 1, "s", "{}", List.of(), false, 0, 7, "q", null, List.of(),
                ClaimedStep.Family.NONE),
                slots.take());
        step.beginCommitting();
        CountDownLatch bothReady = new CountDownLatch(2);
        Runnable ender = () -> {
            bothReady.countDown();
            try {
                bothReady.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            step.end();
        };
        Thread a = new Thread(ender);
        Thread b = new Thread(ender);
        a.start();
        b.start();
        a.join();
        b.join();

        assertThat(counts()).containsExactly(4, 0, 0);
    }

    /** free, running, committing. */
    private List<Integer> counts() {
        return List.of(slots.free(), slots.running(), slots.committing());
    }
}
