package dev.durable.runtime.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.runtime.step.ClaimedStep;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A queue's slots and claims have one owner: a claimed row waits for a slot and starts when one is free, gives the
 * slot back when its outcome goes to the committer (so the slot runs the next row while the outcome commits) and its
 * claim when it ends, each once however many times its end is reached; the prefetch follows the steps' speed; an ended
 * claim wakes the poller only when a pick is worth making.
 */
class QueueSlotsTest {

    private final AtomicInteger wakes = new AtomicInteger();
    private final List<RunningStep> started = new ArrayList<>();
    private final QueueSlots slots = new QueueSlots(2, 3, wakes::incrementAndGet, started::add);

    @Test
    void aClaimedRowStartsWhenASlotIsFreeAndItsSlotRunsTheNextRowWhileItsOutcomeCommits() {
        RunningStep first = claim(1);
        RunningStep second = claim(2);
        RunningStep third = claim(3);
        assertThat(started).containsExactly(first, second);
        assertThat(counts()).as("claims, running, waiting, committing").containsExactly(3, 2, 1, 0);

        assertThat(first.beginCommitting(true)).isTrue();
        assertThat(started).as("the slot first gave back runs the waiting row at once").containsExactly(first, second,
                third);
        assertThat(counts()).containsExactly(3, 2, 0, 1);

        first.end();
        first.end();
        assertThat(counts()).as("a second end changes nothing").containsExactly(2, 2, 0, 0);
    }

    @Test
    void anInlineContinuationWaitsForASlotAheadOfTheClaimedRows() {
        RunningStep chain = claim(1);
        claim(2);
        RunningStep waiting = claim(3);
        chain.beginCommitting(false); // its slot goes to row 3; the claim goes on with the chain
        chain.continueWith(claimed(1, "next"));
        slots.continued(chain);
        assertThat(counts()).containsExactly(3, 2, 1, 0);

        waiting.beginCommitting(true);

        assertThat(started.get(started.size() - 1)).isSameAs(chain);
        assertThat(chain.claimed().step()).isEqualTo("next");
    }

    @Test
    void noRowsArePrefetchedUntilTheQueuesStepsHaveBeenTimed() {
        assertThat(slots.prefetch()).isZero();
        assertThat(slots.claimable()).as("the slots only").isEqualTo(2);

        RunningStep step = claim(1);
        step.beginCommitting(true); // times the step (microseconds here)

        assertThat(slots.prefetch()).as("fast steps: up to a batch").isEqualTo(3);
        assertThat(slots.claimable()).as("two slots and three rows waiting, one claim held").isEqualTo(3);
    }

    @Test
    void rowsWaitForASlotAboutThePrefetchHorizonOnAverageSoSlowStepsGetNone() {
        assertThat(prefetchAfter(10, 50, TimeUnit.MICROSECONDS.toNanos(30))).as("fast: a batch").isEqualTo(50);
        assertThat(prefetchAfter(4, 50, TimeUnit.MILLISECONDS.toNanos(20)))
                .as("4 slots of 20 ms steps drain 2 rows in 10 ms").isEqualTo(2);
        assertThat(prefetchAfter(4, 50, TimeUnit.MILLISECONDS.toNanos(100))).as("slow: a claim is a slot").isZero();
    }

    @Test
    void theNextPickOverlapsTheCommitOfTheLastBatchUpToOneBatchMore() {
        QueueSlots four = slowQueue(4, 3);
        List<RunningStep> committing = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            committing.add(claimOn(four, i));
        }
        assertThat(four.claimable()).as("every slot running").isZero();

        committing.forEach(step -> step.beginCommitting(true));
        assertThat(four.claimable()).as("their user code is over: a batch, while the four commit").isEqualTo(3);

        for (int i = 4; i < 7; i++) {
            claimOn(four, i);
        }
        assertThat(four.running()).as("the rows picked meanwhile run in the slots given back").isEqualTo(3);
        assertThat(four.claimable()).as("slots and one batch: the most a node holds while outcomes commit").isZero();

        committing.get(0).end();
        assertThat(four.claimable()).isEqualTo(1);
    }

    @Test
    void aClaimThatGoesOnAfterItsCommitMakesNoRoomForAPick() {
        QueueSlots one = slowQueue(1, 3);
        RunningStep chain = claimOn(one, 1);

        chain.beginCommitting(false); // an inline chain's: the claim is not about to end

        assertThat(one.committing()).isZero();
        assertThat(one.claimable()).isZero();
    }

    @Test
    void thePollerHearsOfTheFirstClaimableRowAndWhileThereIsABacklogOfTheLastCommittingClaimsEnd() {
        assertThat(wakesWhileFourClaimsCommitAndEnd(true)).as("first claimable, while committing, after the ends")
                .containsExactly(1, 1, 5);
    }

    @Test
    void withoutABacklogEndedClaimsDoNotWakeThePoller() {
        assertThat(wakesWhileFourClaimsCommitAndEnd(false)).as("first claimable, while committing, after the ends")
                .containsExactly(1, 1, 1);
    }

    @Test
    void aPollerAsleepForWantOfRoomHearsOfItHoweverManyRowsBecomeClaimableAtOnce() {
        QueueSlots two = new QueueSlots(2, 2, wakes::incrementAndGet, step -> { }); // not timed: no prefetch
        RunningStep first = claimOn(two, 1);
        claimOn(two, 2);
        two.pollerWantsRoom();
        int before = wakes.get();
        two.recordDuration(TimeUnit.MICROSECONDS.toNanos(10)); // timed fast: the prefetch grows, unseen by anyone

        first.beginCommitting(true); // 0 -> 2 claimable, never 1

        assertThat(wakes.get() - before).isEqualTo(1);
        assertThat(two.claimable()).isEqualTo(2);
    }

    @Test
    void aPollerThatAsksForRoomWhenThereIsSomeIsWokenAtOnce() {
        slots.pollerWantsRoom(); // claims ended between the poller's look and its sleep

        assertThat(wakes).hasValue(1);
    }

    @Test
    void aCommitThatMayLeaveWorkWakesThePoller() {
        slots.workMayBeDue();

        assertThat(wakes).hasValue(1);
    }

    /** Four slots of slow steps, all running; they commit and end one by one: the wakes after each phase. */
    private List<Integer> wakesWhileFourClaimsCommitAndEnd(boolean backlog) {
        QueueSlots four = slowQueue(4, 3);
        four.backlog(backlog);
        List<RunningStep> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            taken.add(claimOn(four, i));
        }
        four.pollerWantsRoom(); // nothing is claimable: the poller sleeps
        int before = wakes.get();

        taken.get(0).beginCommitting(true); // the first claimable row
        int first = wakes.get() - before;
        taken.get(1).beginCommitting(true); // the woken poller gathers these for a batch window
        taken.get(2).beginCommitting(true);
        taken.get(3).beginCommitting(true);
        int committing = wakes.get() - before;
        taken.forEach(RunningStep::end); // a batch claimable after the first, and the last committing one
        int ended = wakes.get() - before;
        return List.of(first, committing, ended);
    }

    @Test
    void aClaimEndedWithoutCommittingWakesThePollerAtOnce() {
        claim(1).end();

        assertThat(wakes).hasValue(1);
    }

    @Test
    void aStoppingNodeTakesBackTheRowsThatNeverStarted() {
        claim(1);
        claim(2);
        RunningStep waiting = claim(3);

        List<RunningStep> released = slots.releaseWaiting();

        assertThat(released).containsExactly(waiting);
        assertThat(waiting.phase()).isEqualTo(RunningStep.Phase.RELEASED);
        waiting.end();
        assertThat(counts()).containsExactly(2, 2, 0, 0);
    }

    /** Every way a step ends goes through RunningStep.end(): reaching it twice (a race of two enders) ends it once. */
    @Test
    void aStepEndedTwiceGivesBackItsClaimOnce() throws InterruptedException {
        RunningStep step = claim(1);
        step.beginCommitting(true);
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

        assertThat(counts()).containsExactly(0, 0, 0, 0);
    }

    /**
     * A local start is promised a claim only while its row would start at once (docs/DESIGN.md, "Local starts"): a
     * slot free that neither a waiting row nor an earlier promise takes; the promise counts as a claim until the row
     * arrives or it is taken back, and taking it back wakes a poller that waits for room.
     */
    @Test
    void aStartIsPromisedAClaimOnlyWhileAFreeSlotWouldRunItAtOnce() {
        QueueSlots two = slowQueue(2, 3);
        assertThat(two.reserve()).isTrue();
        assertThat(two.reserve()).isTrue();
        assertThat(two.reserve()).as("both free slots promised").isFalse();
        assertThat(two.claims()).isEqualTo(2);
        assertThat(two.claimable()).as("the promises count as claims").isZero();

        two.pollerWantsRoom();
        int wakesBefore = wakes.get();
        two.unreserve();
        assertThat(wakes.get()).as("room for a pick wakes the poller").isEqualTo(wakesBefore + 1);
        RunningStep arrived = new RunningStep(claimed(1, "s"), two);
        two.claimedAtStart(arrived);
        assertThat(arrived.phase()).isEqualTo(RunningStep.Phase.RUNNING);
        assertThat(two.claims()).as("the promise became the claim").isEqualTo(1);

        claimOn(two, 2);
        claimOn(two, 3); // waits: both slots run
        assertThat(two.reserve()).as("a row waits for a slot").isFalse();
    }

    /** A queue of slow steps: no prefetch, so its claims are its slots. */
    private QueueSlots slowQueue(int concurrency, int batchSize) {
        QueueSlots queue = new QueueSlots(concurrency, batchSize, wakes::incrementAndGet, step -> { });
        queue.recordDuration(TimeUnit.SECONDS.toNanos(1));
        return queue;
    }

    private static RunningStep claimOn(QueueSlots queue, long id) {
        RunningStep step = new RunningStep(claimed(id, "s"), queue);
        queue.claimed(step);
        return step;
    }

    private RunningStep claim(long id) {
        RunningStep step = new RunningStep(claimed(id, "s"), slots);
        slots.claimed(step);
        return step;
    }

    private static int prefetchAfter(int concurrency, int batch, long stepNanos) {
        QueueSlots queue = new QueueSlots(concurrency, batch, () -> { }, step -> { });
        for (int i = 0; i < 500; i++) {
            queue.recordDuration(stepNanos);
        }
        return queue.prefetch();
    }

    /** claims, running, waiting, committing. */
    private List<Integer> counts() {
        return List.of(slots.claims(), slots.running(), slots.waiting(), slots.committing());
    }

    private static ClaimedStep claimed(long id, String step) {
        return new ClaimedStep(id, "m", 1, step, "{}", List.of(), false, 0, 7, "q", null, List.of(),
                ClaimedStep.Family.NONE);
    }
}
