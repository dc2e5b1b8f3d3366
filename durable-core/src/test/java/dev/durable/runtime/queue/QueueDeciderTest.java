package dev.durable.runtime.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The wake-up protocol of a queue's owner, event by event, without a database, a thread or a clock
 * (docs/DESIGN.md, "The life of a step"): when the poller picks and how much, when it sleeps and who wakes it, when
 * a claimed row starts, and what becomes of claims that end, fail to commit, are cancelled while they wait, or belong
 * to a stopping node. Time is what the test says it is.
 */
class QueueDeciderTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long US = TimeUnit.MICROSECONDS.toNanos(1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    /** The queue's defaults but small: 2 slots, picks of up to 3, a batch window of 2 ms, polls every 100 ms. */
    private final QueueDecider<HeldClaim> queue = decider(2, 3);
    private long now = 1_000 * MS;

    private static QueueDecider<HeldClaim> decider(int concurrency, int batch) {
        return new QueueDecider<>(concurrency, batch, Duration.ofMillis(2), Duration.ofMillis(100));
    }

    // ---- A lone start

    @Test
    void aLoneStartIsPickedAtOnceRunsAtOnceAndItsEndWakesNoOne() {
        assertThat(queue.poll(now, true)).as("nothing is due yet: a pick finds nothing")
                .isEqualTo(Decisions.Poll.pick(2));
        Decisions<HeldClaim> empty = queue.picked(List.of(), 2, false, now, now);
        assertThat(empty.poll()).as("asleep until the next due row, at most the longest pause")
                .isEqualTo(Decisions.Poll.untilNextDue(QueueDecider.LONGEST_PAUSE_NANOS));

        assertThat(queue.wake()).as("a local start wakes the sleeping poller").isTrue();
        assertThat(queue.wake()).as("a second start while that wake is on its way adds nothing").isFalse();
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pick(2));
        HeldClaim row = claim(1);
        Decisions<HeldClaim> picked = queue.picked(List.of(row), 2, false, now, now + 1 * MS);
        assertThat(picked.start()).as("a free slot: it starts at once").containsExactly(row);
        assertThat(picked.check()).isEmpty();
        assertThat(picked.poll()).as("a partial batch: no backlog, the poller sleeps a poll interval at most")
                .isEqualTo(Decisions.Poll.untilNextDue(100 * MS));

        Decisions<HeldClaim> over = queue.userCodeOver(row, false, now + 2 * MS);
        assertThat(over.afterUserCode()).isEqualTo(Decisions.AfterUserCode.COMMIT);
        assertThat(over.none()).as("nothing to start, no one to wake").isTrue();
        assertThat(counts()).as("claims, running, waiting, committing").containsExactly(1, 0, 0, 1);

        Decisions<HeldClaim> done = queue.ended(row, false, now + 3 * MS);
        assertThat(done.wakesPoller()).as("a done without a backlog leaves nothing to pick").isFalse();
        assertThat(counts()).containsExactly(0, 0, 0, 0);
    }

    @Test
    void aWakeWhileThePollerPicksEndsItsTurnWithAnotherInsteadOfReachingItsThread() {
        assertThat(queue.poll(now, true).picks()).isTrue();

        assertThat(queue.wake()).as("the poller is awake: nothing to signal").isFalse();
        Decisions<HeldClaim> picked = queue.picked(List.of(claim(1)), 2, false, now, now);

        assertThat(picked.poll()).as("what woke it may have come after the pick's snapshot: look again")
                .isEqualTo(Decisions.Poll.AGAIN);
        assertThat(queue.wake()).as("still awake: its next turn comes at once").isFalse();
    }

    @Test
    void aCommittedNextOrAPartitionedRowsEndWakesThePollerForTheRowItMayHaveLeft() {
        HeldClaim row = startOne(1);
        queue.userCodeOver(row, false, now);

        assertThat(queue.ended(row, true, now).wakesPoller()).isTrue();
    }

    // ---- A backlog

    @Test
    void aFullBatchIsFollowedByAnotherPickAtOnce() {
        timeFastSteps(); // a prefetch of a batch: 2 slots + 3 waiting, at most a batch per pick
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pick(3));

        Decisions<HeldClaim> picked = queue.picked(claims(1, 3), 3, false, now, now);

        assertThat(picked.start()).hasSize(2);
        assertThat(picked.poll()).isEqualTo(Decisions.Poll.AGAIN);
        assertThat(queue.hasBacklog()).isTrue();
        assertThat(queue.poll(now, true)).as("two slots and three waiting: two more").isEqualTo(Decisions.Poll.pick(2));
    }

    @Test
    void withABacklogThePollerGathersCommittingClaimsForABatchWindowThenPicks() {
        QueueDecider<HeldClaim> four = slowQueue(4, 3);
        List<HeldClaim> rows = fill(four, 4, true);
        four.userCodeOver(rows.get(0), false, now + SECOND);
        assertThat(four.claimable()).isOne();

        assertThat(four.poll(now, true)).as("backlog, a partial batch, a claim about to end: wait the batch window")
                .isEqualTo(Decisions.Poll.pause(2 * MS));
        assertThat(four.poll(now + 1 * MS, true)).as("woken early: the rest of the same window")
                .isEqualTo(Decisions.Poll.pause(1 * MS));
        assertThat(four.poll(now + 2 * MS, true)).as("the window is over").isEqualTo(Decisions.Poll.pick(1));
    }

    @Test
    void withoutABacklogThePollerPicksAtOnceWhateverCommits() {
        QueueDecider<HeldClaim> four = slowQueue(4, 3);
        List<HeldClaim> rows = fill(four, 4, false);
        four.userCodeOver(rows.get(0), false, now + SECOND);

        assertThat(four.poll(now, true)).isEqualTo(Decisions.Poll.pick(1));
    }

    @Test
    void withABacklogTheLastCommittingClaimsEndWakesThePoller() {
        assertThat(wakesWhileFourClaimsCommitAndEnd(true)).as("first claimable, while committing, after the ends")
                .containsExactly(1, 1, 2);
    }

    @Test
    void withoutABacklogEndedClaimsDoNotWakeThePoller() {
        assertThat(wakesWhileFourClaimsCommitAndEnd(false)).as("first claimable, while committing, after the ends")
                .containsExactly(1, 1, 1);
    }

    /** Four slots of slow steps, all running; they commit and end one by one: the wakes after each phase. */
    private List<Integer> wakesWhileFourClaimsCommitAndEnd(boolean backlog) {
        QueueDecider<HeldClaim> four = slowQueue(4, 3);
        List<HeldClaim> taken = fill(four, 4, backlog);
        assertThat(four.poll(now, true)).as("nothing claimable: the poller sleeps for room")
                .isEqualTo(Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));
        int wakes = 0;
        List<Integer> seen = new ArrayList<>();
        wakes += four.userCodeOver(taken.get(0), false, now + SECOND).wakesPoller() ? 1 : 0; // the first claimable
        seen.add(wakes);
        Decisions.Poll turn = four.poll(now, true); // the woken poller gathers (a backlog), or picks
        if (turn.picks()) {
            four.picked(List.of(), turn.limit(), false, now, now);
        }
        for (int k = 1; k < 4; k++) {
            wakes += four.userCodeOver(taken.get(k), false, now + SECOND).wakesPoller() ? 1 : 0;
        }
        seen.add(wakes);
        for (HeldClaim row : taken) {
            wakes += four.ended(row, false, now).wakesPoller() ? 1 : 0;
        }
        seen.add(wakes);
        return seen;
    }

    @Test
    void aPollerAsleepForWantOfRoomIsWokenOnceHoweverManyRowsBecomeClaimableAtOnce() {
        HeldClaim first = startOne(1);
        startOne(2);
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));

        Decisions<HeldClaim> over = queue.userCodeOver(first, false, now + 10 * US); // timed fast: 0 -> 3 claimable

        assertThat(over.wakesPoller()).isTrue();
        assertThat(queue.claimable()).isEqualTo(3);
        assertThat(queue.ended(first, false, now).wakesPoller()).as("the wake is on its way, and no backlog")
                .isFalse();
    }

    @Test
    void aProbeFindThatLedToEmptyPicksIsIgnoredForAPauseThatDoublesUpToASecond() {
        List<Long> pauses = new ArrayList<>();
        assertThat(queue.workFound(now)).isTrue();
        for (int k = 0; k < 6; k++) {
            assertThat(queue.poll(now, true).picks()).isTrue();
            queue.picked(List.of(), 2, false, now, now); // the due rows are not this node's to take
            long ignored = 0;
            while (!queue.workFound(now + ignored * MS)) {
                ignored += 1;
            }
            pauses.add(ignored);
            now += ignored * MS;
        }
        assertThat(pauses).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);

        queue.poll(now, true);
        queue.picked(List.of(claim(1)), 2, false, now, now);
        assertThat(queue.workFound(now)).as("a pick that claimed rows ends the pause").isTrue();
    }

    @Test
    void aPausedQueueAndANodeHeldByItsDeployCheckPickNothingUntilWoken() {
        queue.pause();
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));
        assertThat(queue.resume()).isTrue();
        assertThat(queue.poll(now, false)).isEqualTo(Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));
        assertThat(queue.wake()).as("the deploy check lets go").isTrue();
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pick(2));
    }

    // ---- A slow step with prefetch

    @Test
    void aSlotGivenBackByAStepWhoseOutcomeCommitsRunsTheNextWaitingRow() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        Decisions<HeldClaim> picked = queue.picked(rows, 3, false, now, now);
        assertThat(picked.start()).containsExactly(rows.get(0), rows.get(1));
        assertThat(counts()).containsExactly(3, 2, 1, 0);

        Decisions<HeldClaim> over = queue.userCodeOver(rows.get(0), false, now + 1 * MS);

        assertThat(over.start()).containsExactly(rows.get(2));
        assertThat(counts()).containsExactly(3, 2, 0, 1);
    }

    @Test
    void rowsWaitForASlotAboutThePrefetchHorizonOnAverageSoSlowStepsGetNone() {
        assertThat(queue.prefetch()).as("untimed: no prefetch").isZero();
        assertThat(prefetchAfter(10, 50, 30 * US)).as("fast: a batch").isEqualTo(50);
        assertThat(prefetchAfter(4, 50, 20 * MS)).as("4 slots of 20 ms steps drain 2 rows in 10 ms").isEqualTo(2);
        assertThat(prefetchAfter(4, 50, 100 * MS)).as("slow: a claim is a slot").isZero();
    }

    @Test
    void rowsPrefetchedBehindSlowStepsAreCheckedBeforeTheyStartInOneReadPerStart() {
        timeFastSteps(); // fast so far: a batch may wait
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pick(2));
        List<HeldClaim> more = claims(4, 2);
        queue.picked(more, 2, false, now, now);
        assertThat(counts()).as("two run, three wait").containsExactly(5, 2, 3, 0);

        long late = now + 200 * MS; // the two steps were slow: the rows waited past the bound
        Decisions<HeldClaim> first = queue.userCodeOver(rows.get(0), false, late);
        assertThat(first.start()).isEmpty();
        assertThat(first.check()).as("its row is read before it starts").containsExactly(rows.get(2));
        assertThat(queue.running()).as("it holds the slot while it is checked").isEqualTo(2);
        Decisions<HeldClaim> second = queue.userCodeOver(rows.get(1), false, late);
        assertThat(second.check()).containsExactly(more.get(0));

        Decisions<HeldClaim> answer = queue.checked(List.of(rows.get(2)), List.of(more.get(0)), late + 1 * MS);

        assertThat(answer.start()).as("still this node's claim: it runs").containsExactly(rows.get(2));
        assertThat(answer.dropped()).as("cancelled meanwhile: it never runs").containsExactly(more.get(0));
        assertThat(answer.check()).as("the slot it gave back goes to the last waiting row, checked too")
                .containsExactly(more.get(1));
        assertThat(more.get(0).phase()).isEqualTo(HeldClaim.Phase.ENDED);
        assertThat(queue.prefetch()).as("the steps are slow now: no more rows wait").isZero();
    }

    @Test
    void theRowsWaitingBehindACheckedOneAreReadWithItAndStartUncheckedWhileTheReadIsRecent() {
        List<HeldClaim> rows = claims(1, 3);
        List<HeldClaim> more = claims(4, 2);
        twoRunTheRestWait(rows, more, now + 20 * MS);

        long late = now + 200 * MS;
        Decisions<HeldClaim> first = queue.userCodeOver(rows.get(0), false, late);
        assertThat(first.check()).containsExactly(rows.get(2));
        assertThat(first.refresh()).as("the rows waiting behind it, past half the bound, are read in the same statement")
                .containsExactly(more.get(0), more.get(1));
        assertThat(more.get(0).phase()).as("without a slot: they still wait").isEqualTo(HeldClaim.Phase.WAITING);
        assertThat(queue.running()).isEqualTo(2);

        Decisions<HeldClaim> read = queue.refreshed(List.of(more.get(0)), List.of(more.get(1)), List.of(), late + MS);
        assertThat(read.dropped()).as("found gone while it waited: it never runs").containsExactly(more.get(1));
        assertThat(more.get(1).phase()).isEqualTo(HeldClaim.Phase.ENDED);
        assertThat(queue.checked(List.of(rows.get(2)), List.of(), late + MS).start()).containsExactly(rows.get(2));

        Decisions<HeldClaim> next = queue.userCodeOver(rows.get(1), false, late + QueueDecider.CHECK_AFTER_NANOS);
        assertThat(next.check()).as("known held since the read was decided: no read of its own").isEmpty();
        assertThat(next.start()).containsExactly(more.get(0));
    }

    @Test
    void aReadOfAWaitingRowThatAnswersAfterItTookItsSlotNeitherStartsNorDropsIt() {
        List<HeldClaim> rows = claims(1, 3);
        HeldClaim behind = claim(4);
        twoRunTheRestWait(rows, List.of(behind), now);
        long late = now + 200 * MS;
        assertThat(queue.userCodeOver(rows.get(0), false, late).refresh()).containsExactly(behind);
        queue.checked(List.of(rows.get(2)), List.of(), late + MS);

        Decisions<HeldClaim> slot = queue.userCodeOver(rows.get(1), false, late + 2 * MS);
        assertThat(slot.check()).as("past the bound with its refresh unanswered: it is checked itself")
                .containsExactly(behind);
        assertThat(slot.refresh()).as("no second read of a row whose read is under way").isEmpty();

        Decisions<HeldClaim> stale = queue.refreshed(List.of(), List.of(behind), List.of(), late + 3 * MS);
        assertThat(stale.none()).isTrue();
        assertThat(behind.phase()).as("its own check decides").isEqualTo(HeldClaim.Phase.CHECKING);
        assertThat(queue.checked(List.of(behind), List.of(), late + 4 * MS).start()).containsExactly(behind);
    }

    @Test
    void aRefreshThatFailsOnlyClearsItsMarkSoTheRowsAreReadAgainLater() {
        List<HeldClaim> rows = claims(1, 3);
        List<HeldClaim> more = claims(4, 2);
        twoRunTheRestWait(rows, more, now);
        long late = now + 200 * MS;
        assertThat(queue.userCodeOver(rows.get(0), false, late).refresh()).containsExactly(more.get(0), more.get(1));

        assertThat(queue.refreshed(List.of(), List.of(), more, late + MS).none()).isTrue();
        assertThat(more).allMatch(claim -> claim.phase() == HeldClaim.Phase.WAITING);
        queue.checked(List.of(rows.get(2)), List.of(), late + MS);
        Decisions<HeldClaim> again = queue.userCodeOver(rows.get(1), false, late + 2 * MS);
        assertThat(again.check()).containsExactly(more.get(0));
        assertThat(again.refresh()).as("unanswered, so read again with the next check").containsExactly(more.get(1));
    }

    @Test
    void aRowThatWaitedNoLongerThanTheBoundStartsUnchecked() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);

        Decisions<HeldClaim> over = queue.userCodeOver(rows.get(0), false, now + QueueDecider.CHECK_AFTER_NANOS);

        assertThat(over.start()).containsExactly(rows.get(2));
        assertThat(over.check()).isEmpty();
    }

    @Test
    void slowStepsOfAQueueWithoutPrefetchClaimNoMoreRowsThanItsSlots() {
        QueueDecider<HeldClaim> four = slowQueue(4, 3);
        assertThat(four.claimable()).isEqualTo(3);
        fill(four, 4, false);

        assertThat(four.claimable()).isZero();
    }

    @Test
    void theNextPickOverlapsTheCommitOfTheLastBatchUpToOneBatchMore() {
        QueueDecider<HeldClaim> four = slowQueue(4, 3);
        List<HeldClaim> committing = fill(four, 4, false);

        committing.forEach(row -> four.userCodeOver(row, false, now + SECOND));
        assertThat(four.claimable()).as("their user code is over: a batch, while the four commit").isEqualTo(3);

        four.poll(now, true);
        Decisions<HeldClaim> picked = four.picked(claims(10, 3), 3, false, now, now);
        assertThat(picked.start()).as("the rows picked meanwhile run in the slots given back").hasSize(3);
        assertThat(four.claimable()).as("slots and one batch: the most a node holds while outcomes commit").isZero();

        four.ended(committing.get(0), false, now);
        assertThat(four.claimable()).isOne();
    }

    // ---- A commit failure

    @Test
    void aFencedOrAbandonedOutcomeEndsItsClaimLikeACommittedOneAndMakesRoomForThePoller() {
        QueueDecider<HeldClaim> one = slowQueue(1, 3);
        HeldClaim row = fill(one, 1, false).get(0);
        assertThat(one.poll(now, true)).isEqualTo(Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));
        Decisions<HeldClaim> over = one.userCodeOver(row, false, now + SECOND);
        assertThat(over.wakesPoller()).as("its user code is over: room for a pick while it commits").isTrue();
        one.poll(now, true);
        one.picked(List.of(), 1, false, now, now); // nothing more is due

        Decisions<HeldClaim> fenced = one.ended(row, false, now);

        assertThat(fenced.wakesPoller()).as("no backlog: a fenced outcome leaves nothing to pick").isFalse();
        assertThat(one.claims()).isZero();
        assertThat(one.committing()).isZero();
    }

    @Test
    void aClaimThatEndsWithoutCommittingWakesThePollerItsRowMayBeRunnableAgain() {
        HeldClaim row = startOne(1);
        queue.poll(now, true);
        queue.picked(List.of(), 1, false, now, now);

        Decisions<HeldClaim> died = queue.ended(row, false, now + 5 * MS); // an Error: handed back, attempt + 1

        assertThat(died.wakesPoller()).isTrue();
        assertThat(queue.running()).as("its slot is free").isZero();
        assertThat(queue.claimable()).as("and it was timed: fast, so the prefetch opens").isEqualTo(3);
    }

    @Test
    void aSecondEndOfAClaimChangesNothing() {
        HeldClaim row = startOne(1);
        queue.userCodeOver(row, false, now);
        queue.ended(row, false, now);

        assertThat(queue.ended(row, false, now).none()).isTrue();
        assertThat(counts()).containsExactly(0, 0, 0, 0);
    }

    // ---- Cancel and lost leases

    @Test
    void aCancelledInstancesWaitingClaimNeverStartsAndItsRunningStepIsInterrupted() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);
        queue.poll(now, true);
        queue.picked(List.of(), 2, false, now, now); // nothing more: the poller sleeps

        Decisions<HeldClaim> waiting = queue.cancelled(3, now);
        assertThat(waiting.dropped()).containsExactly(rows.get(2));
        assertThat(waiting.wakesPoller()).as("an end without a commit: its row may be runnable again").isTrue();
        Decisions<HeldClaim> running = queue.cancelled(1, now);
        assertThat(running.interrupt()).containsExactly(rows.get(0));
        assertThat(running.reason()).isEqualTo(InterruptReason.CANCELLED);
        assertThat(counts()).containsExactly(2, 2, 0, 0);
    }

    @Test
    void aClaimCancelledWhileItsRowIsCheckedNeverStarts() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);
        HeldClaim late = rows.get(2);
        assertThat(queue.userCodeOver(rows.get(0), false, now + 200 * MS).check()).containsExactly(late);

        assertThat(queue.cancelled(late.id(), now).none()).as("nothing to do until the check answers").isTrue();
        Decisions<HeldClaim> answer = queue.checked(List.of(late), List.of(), now + 201 * MS);

        assertThat(answer.start()).isEmpty();
        assertThat(answer.dropped()).containsExactly(late);
        assertThat(queue.running()).isOne();
    }

    @Test
    void aLostLeaseIsMatchedByTokenNotByInstance() {
        HeldClaim stale = startOne(1);
        HeldClaim fresh = new HeldClaim(1, 8, false); // the same row, reaped and picked again by this node
        queue.poll(now, true);
        queue.picked(List.of(fresh), 1, false, now, now);

        Decisions<HeldClaim> lost = queue.claimLost(1, 7, now);

        assertThat(lost.interrupt()).containsExactly(stale);
        assertThat(lost.reason()).isEqualTo(InterruptReason.LEASE_LOST);
    }

    // ---- Shutdown

    @Test
    void aStoppingNodeHandsBackWaitingRowsAtOnceAndWaitsForRunningOnes() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);

        Decisions<HeldClaim> drain = queue.drain();

        assertThat(drain.handBack()).containsExactly(rows.get(2));
        assertThat(drain.interrupt()).as("running steps go on").isEmpty();
        assertThat(queue.poll(now, true)).as("no more picks").isEqualTo(
                Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));
        assertThat(queue.handedBack(drain.handBack(), now).none()).isFalse();
        assertThat(counts()).as("the running two remain").containsExactly(2, 2, 0, 0);

        assertThat(queue.userCodeOver(rows.get(0), true, now).afterUserCode())
                .as("no inline continuation on a stopping node").isEqualTo(Decisions.AfterUserCode.COMMIT);
        queue.ended(rows.get(0), false, now);
        Decisions<HeldClaim> unfinished = queue.releaseUnfinished();
        assertThat(unfinished.handBack()).as("the grace period is over").containsExactly(rows.get(1));
        assertThat(unfinished.interrupt()).containsExactly(rows.get(1));
        assertThat(unfinished.reason()).isEqualTo(InterruptReason.SHUTDOWN);
        assertThat(queue.handedBack(unfinished.handBack(), now).none()).as("its thread ends it").isTrue();
        assertThat(queue.claims()).isOne();

        assertThat(queue.userCodeOver(rows.get(1), false, now).afterUserCode())
                .isEqualTo(Decisions.AfterUserCode.DISCARD);
        queue.ended(rows.get(1), false, now);
        assertThat(counts()).containsExactly(0, 0, 0, 0);
    }

    @Test
    void aRowCheckedWhileTheNodeBeginsToStopIsHandedBackUnstarted() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);
        HeldClaim late = rows.get(2);
        assertThat(queue.userCodeOver(rows.get(0), false, now + 200 * MS).check()).containsExactly(late);
        queue.drain();

        Decisions<HeldClaim> answer = queue.checked(List.of(late), List.of(), now + 201 * MS);

        assertThat(answer.start()).isEmpty();
        assertThat(answer.handBack()).containsExactly(late);
        queue.handedBack(answer.handBack(), now + 202 * MS);
        assertThat(late.phase()).isEqualTo(HeldClaim.Phase.ENDED);
        assertThat(queue.running()).as("the slot it took is free").isOne();
    }

    @Test
    void rowsPickedWhileTheNodeBeginsToStopAreHandedBackUnstarted() {
        queue.poll(now, true);
        queue.drain();
        HeldClaim row = claim(1);

        Decisions<HeldClaim> picked = queue.picked(List.of(row), 2, false, now, now);

        assertThat(picked.start()).isEmpty();
        assertThat(picked.handBack()).containsExactly(row);
    }

    @Test
    void aNodeStartedAgainPicksAgain() {
        queue.drain();
        queue.start();

        assertThat(queue.poll(now, true).picks()).isTrue();
    }

    // ---- Local starts

    /**
     * A local start is promised a claim only while its row would start at once (docs/DESIGN.md, "Local starts"): a
     * slot free that neither a waiting row nor an earlier promise takes, no pick out; the promise counts as a claim
     * until the row arrives or it is taken back, and taking it back wakes a poller that waits for room.
     */
    @Test
    void aLocalStartIsPromisedAClaimOnlyWhileAFreeSlotWouldRunItAtOnce() {
        QueueDecider<HeldClaim> two = slowQueue(2, 3);
        assertThat(two.promise()).as("the node has not started").isFalse();
        two.start();
        assertThat(two.promise()).isTrue();
        assertThat(two.promise()).isTrue();
        assertThat(two.promise()).as("both free slots promised").isFalse();
        assertThat(two.claimable()).as("the promises count as claims").isZero();
        assertThat(two.poll(now, true)).isEqualTo(Decisions.Poll.pause(QueueDecider.LONGEST_PAUSE_NANOS));

        assertThat(two.unpromise().wakesPoller()).as("room for a pick wakes the poller").isTrue();
        HeldClaim arrived = claim(1);
        Decisions<HeldClaim> joined = two.claimedAtStart(List.of(arrived), now, now);
        assertThat(joined.start()).as("it runs in the slot it was promised").containsExactly(arrived);
        assertThat(two.claims()).as("the promise became the claim").isOne();
        assertThat(two.promised()).isZero();

        assertThat(two.poll(now, true).picks()).isTrue();
        assertThat(two.promise()).as("a pick is out").isFalse();
        two.picked(List.of(claim(2), claim(3)), 2, false, now, now); // row 3 waits: both slots run
        assertThat(two.promise()).as("a row waits for a slot").isFalse();
    }

    @Test
    void rowsAStartClaimedWhileTheNodeBeginsToStopAreHandedBack() {
        queue.start();
        assertThat(queue.promise()).isTrue();
        queue.drain();
        HeldClaim row = claim(1);

        Decisions<HeldClaim> joined = queue.claimedAtStart(List.of(row), now, now);

        assertThat(joined.start()).isEmpty();
        assertThat(joined.handBack()).containsExactly(row);
        assertThat(queue.promise()).as("a stopping node promises nothing").isFalse();
    }

    // ---- An inline continuation

    @Test
    void anInlineContinuationWaitsForASlotAheadOfTheClaimedRowsAndNeverCountsAsCommitting() {
        timeFastSteps();
        queue.poll(now, true);
        List<HeldClaim> rows = claims(1, 3);
        queue.picked(rows, 3, false, now, now);
        HeldClaim chain = rows.get(0);

        Decisions<HeldClaim> over = queue.userCodeOver(chain, true, now);
        assertThat(over.afterUserCode()).isEqualTo(Decisions.AfterUserCode.CONTINUE);
        assertThat(over.start()).as("its slot runs the waiting row").containsExactly(rows.get(2));
        assertThat(queue.committing()).as("its claim goes on: no room for a pick").isZero();

        Decisions<HeldClaim> next = queue.continued(chain, now + 1 * MS, now + 1 * MS);
        assertThat(next.start()).as("no free slot").isEmpty();
        queue.poll(now, true);
        HeldClaim later = claim(9);
        queue.picked(List.of(later), 3, false, now, now);
        Decisions<HeldClaim> freed = queue.userCodeOver(rows.get(1), false, now + 2 * MS);

        assertThat(freed.start()).as("the chain's next step first").containsExactly(chain);
        assertThat(chain.phase()).isEqualTo(HeldClaim.Phase.RUNNING);
        assertThat(queue.waiting()).isOne();
    }

    @Test
    void aContinuationThatCommitsOnAStoppingNodeIsHandedBack() {
        HeldClaim chain = startOne(1);
        queue.userCodeOver(chain, true, now);
        queue.drain();

        Decisions<HeldClaim> next = queue.continued(chain, now, now);

        assertThat(next.handBack()).containsExactly(chain);
        assertThat(next.start()).isEmpty();
        queue.handedBack(next.handBack(), now);
        assertThat(queue.claims()).isZero();
    }

    @Test
    void aFencedContinuationEndsItsClaimAndWakesThePoller() {
        HeldClaim chain = startOne(1);
        queue.userCodeOver(chain, true, now);
        queue.poll(now, true);
        queue.picked(List.of(), 1, false, now, now);

        assertThat(queue.ended(chain, false, now).wakesPoller()).isTrue();
        assertThatThrownBy(() -> queue.continued(chain, now, now)).isInstanceOf(IllegalStateException.class);
    }

    // ---- Helpers

    private static HeldClaim claim(long id) {
        return new HeldClaim(id, 7, false);
    }

    private List<HeldClaim> claims(long first, int count) {
        return LongStream.range(first, first + count).mapToObj(QueueDeciderTest::claim).toList();
    }

    /** A row picked alone and started at once. */
    private HeldClaim startOne(long id) {
        assertThat(queue.poll(now, true).picks()).isTrue();
        HeldClaim row = claim(id);
        assertThat(queue.picked(List.of(row), 2, false, now, now).start()).containsExactly(row); // no backlog: it sleeps
        return row;
    }

    /** Times a fast step (10 µs) on the test's queue, leaving it as it was: the prefetch is a batch from now. */
    /** Fast steps so far; {@code rows} (three) picked now, two of them running, then {@code more} picked at {@code at}. */
    private void twoRunTheRestWait(List<HeldClaim> rows, List<HeldClaim> more, long at) {
        timeFastSteps();
        queue.poll(now, true);
        queue.picked(rows, 3, false, now, now);
        assertThat(queue.poll(now, true)).isEqualTo(Decisions.Poll.pick(2));
        queue.picked(more, 2, false, at, at);
    }

    private void timeFastSteps() {
        HeldClaim row = startOne(99);
        queue.userCodeOver(row, false, now + 10 * US);
        queue.ended(row, false, now + 10 * US);
        queue.poll(now, true);
        queue.picked(List.of(), 1, false, now, now);
    }

    /** A queue of slow steps (one second each): no prefetch, so its claims are its slots. */
    private QueueDecider<HeldClaim> slowQueue(int concurrency, int batch) {
        QueueDecider<HeldClaim> slow = decider(concurrency, batch);
        slow.poll(now, true);
        HeldClaim row = new HeldClaim(999, 1, false);
        slow.picked(List.of(row), 1, false, now, now);
        slow.userCodeOver(row, false, now + SECOND);
        slow.ended(row, false, now);
        slow.poll(now, true);
        slow.picked(List.of(), 1, false, now, now);
        return slow;
    }

    /** Fills {@code count} slots of {@code queue} with running steps, in picks of one; the last pick's backlog. */
    private List<HeldClaim> fill(QueueDecider<HeldClaim> queue, int count, boolean backlog) {
        List<HeldClaim> rows = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            assertThat(queue.poll(now, true).picks()).isTrue();
            HeldClaim row = new HeldClaim(k + 1, 7, false);
            rows.add(row);
            int asked = backlog || k < count - 1 ? 1 : 2;
            assertThat(queue.picked(List.of(row), asked, false, now, now).start()).containsExactly(row);
        }
        return rows;
    }

    private int prefetchAfter(int concurrency, int batch, long stepNanos) {
        QueueDecider<HeldClaim> timed = decider(concurrency, batch);
        for (int k = 0; k < 100; k++) {
            timed.poll(now, true);
            HeldClaim row = new HeldClaim(k, 7, false);
            timed.picked(List.of(row), 1, false, now, now);
            timed.userCodeOver(row, false, now + stepNanos);
            timed.ended(row, false, now);
        }
        return timed.prefetch();
    }

    /** claims, running, waiting, committing. */
    private List<Integer> counts() {
        return List.of(queue.claims(), queue.running(), queue.waiting(), queue.committing());
    }
}
