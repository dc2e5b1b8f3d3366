package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.CancelResult;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.CancelRepository;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewChild;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The races of children (docs/DESIGN.md, "Children"), forced with a third connection holding the parent's row lock
 * while the racing statements queue behind it in a chosen order (PostgreSQL grants a row lock to its waiters in
 * arrival order): children exist only if their parent's outcome commits, and a parent parked on its children wakes
 * exactly once, whichever of its park and its children's ends comes first.
 */
class ChildrenRaceTest {

    private static final String SCOPE = "{runnable,executing,awaiting_signal}";

    private final DataSource dataSource = TestDatabase.dataSource();
    private final Repositories repositories = Repositories.onTestDatabase();
    /** One thread per blocked statement (the common pool may have a single worker on two cores). */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void clean() {
        TestDatabase.clean();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void aFencedOutcomeStartsNoChildren_andARetriedAmbiguousCommitStartsThemOnlyOnce() {
        long parent = insert("parent", null);
        ClaimedStep stale = pick("parent").get(0);
        // The claim is lost: the row is reaped and claimed again.
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance"
                + " SET lease_expires_at = now() - interval '1 second' WHERE id = ?", parent);
        assertThat(repositories.claims().reapExpired(100)).containsOnlyKeys(parent);
        ClaimedStep current = pick("parent").get(0);

        TransitionRepository.Applied fenced = repositories.transitions().apply(List.of(withChildren(stale, 3)), false);

        assertThat(fenced.applied()).isEmpty();
        assertThat(fenced.newWork()).isEmpty();
        assertThat(childCount(parent)).isZero();
        assertThat(TestDatabase.row(parent)).containsEntry("children_started", 0);

        Transition outcome = withChildren(current, 3);
        assertThat(repositories.transitions().apply(List.of(outcome), false).newWork()).containsExactly("q");
        // The same batch written again, as after a commit whose answer was lost: already written, nothing started.
        assertThat(repositories.transitions().apply(List.of(outcome), true).applied()).containsExactly(parent);
        assertThat(childCount(parent)).isEqualTo(3);
        assertThat(TestDatabase.row(parent)).containsEntry("children_started", 3)
                .containsEntry("status", "awaiting_signal").containsEntry("awaits_children", 3);
    }

    @Test
    void twoChildrenEndingAtOnceWakeTheirParentExactlyOnce() throws Exception {
        long parent = insert("parent", null);
        repositories.transitions().apply(List.of(withChildren(pick("parent").get(0), 2)), false);
        List<ClaimedStep> children = pick("child");
        assertThat(children).hasSize(2);

        CompletableFuture<TransitionRepository.Applied> first;
        CompletableFuture<TransitionRepository.Applied> second;
        try (Connection blocker = RowLocks.lockRow(dataSource, parent)) {
            first = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(Transition.done(children.get(0), "1")), false), threads);
            second = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(Transition.done(children.get(1), "2")), false), threads);
            RowLocks.awaitLockWaits("/* durable: children ended */", 2);
            blocker.commit();
        }

        assertThat(List.of(first.get().newWork(), second.get().newWork()))
                .containsExactlyInAnyOrder(Set.of("q"), Set.of());
        assertThat(TestDatabase.row(parent)).containsEntry("status", "runnable").containsEntry("children_ended", 2);
    }

    @Test
    void aChildEndingBeforeItsParentParks_theParkSeesItAndStaysRunnable() throws Exception {
        ClaimedStep[] family = parentAndChildExecuting();
        CompletableFuture<TransitionRepository.Applied> end;
        CompletableFuture<TransitionRepository.Applied> park;
        try (Connection blocker = RowLocks.lockRow(dataSource, family[0].id())) {
            end = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(Transition.done(family[1], "1")), false), threads);
            RowLocks.awaitLockWait("/* durable: children ended */");
            park = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(awaitChildren(family[0])), false), threads);
            RowLocks.awaitLockWait("/* durable: lock claims */");
            blocker.commit();
        }

        assertThat(end.get().newWork()).isEmpty(); // the parent was still executing: nothing to wake
        assertThat(park.get().applied()).containsExactly(family[0].id());
        assertThat(TestDatabase.row(family[0].id())).containsEntry("status", "runnable")
                .containsEntry("children_ended", 1).containsEntry("awaits_children", 1);
    }

    @Test
    void aParentParkingBeforeItsChildEnds_theEndFindsItParkedAndWakesIt() throws Exception {
        ClaimedStep[] family = parentAndChildExecuting();
        CompletableFuture<TransitionRepository.Applied> end;
        CompletableFuture<TransitionRepository.Applied> park;
        try (Connection blocker = RowLocks.lockRow(dataSource, family[0].id())) {
            park = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(awaitChildren(family[0])), false), threads);
            RowLocks.awaitLockWait("/* durable: lock claims */");
            end = CompletableFuture.supplyAsync(() -> repositories.transitions().apply(
                    List.of(Transition.done(family[1], "1")), false), threads);
            RowLocks.awaitLockWait("/* durable: children ended */");
            blocker.commit();
        }

        assertThat(park.get().applied()).containsExactly(family[0].id());
        assertThat(end.get().newWork()).containsExactly("q");
        assertThat(TestDatabase.row(family[0].id())).containsEntry("status", "runnable")
                .containsEntry("children_ended", 1);
    }

    /**
     * A parent's cancel and its child's end lock the two rows in opposite orders (the cascade parent then child, the
     * end child then parent): forced into a deadlock, PostgreSQL aborts one. Here the cancel is the one aborted (the
     * child's end runs with a long deadlock_timeout, so the cancel's backend finds the cycle first); it is tried
     * again in a transaction of its own and succeeds, after the child's end, which woke the parent.
     */
    @Test
    @DisabledIfEnvironmentVariable(named = "DURABLE_TEST_DIRECT_JDBC_URL", matches = ".+",
            disabledReason = "behind a transaction pooler the session's deadlock_timeout does not stay on one session")
    void aParentsCancelDeadlockedWithItsChildsEndIsTriedAgainAndHolds() throws Exception {
        long parent = insert("parent", null);
        repositories.transitions().apply(List.of(withChildren(pick("parent").get(0), 1)), false);
        ClaimedStep child = pick("child").get(0);

        CompletableFuture<CancelRepository.Cancellation> cancel;
        CompletableFuture<TransitionRepository.Applied> end;
        try (Connection patient = dataSource.getConnection()) {
            patient.createStatement().execute("SET deadlock_timeout = '30s'");
            SingleConnectionDataSource patientSource = new SingleConnectionDataSource(patient, true);
            TransitionRepository patientTransitions = new TransitionRepository(patientSource,
                    new StatementPlanning(patientSource, DurableSchema.named(TestDatabase.SCHEMA)), Repositories.HISTORY);
            try (Connection blocker = RowLocks.lockRow(dataSource, parent)) {
                cancel = CompletableFuture.supplyAsync(() -> repositories.cancels().cancel(List.of(parent),
                        "withdrawn"), threads);
                RowLocks.awaitLockWait("/* durable: cancel */");
                end = CompletableFuture.supplyAsync(() -> patientTransitions.apply(
                        List.of(Transition.done(child, "1")), false), threads);
                RowLocks.awaitLockWait("/* durable: children ended */");
                blocker.commit();
            }
            assertThat(end.get().applied()).containsExactly(child.id());
            assertThat(cancel.get().results()).singleElement().satisfies(result -> {
                assertThat(result.outcome()).isEqualTo(CancelResult.Cancellation.CANCELLED);
                assertThat(result.status()).isEqualTo(InstanceStatus.RUNNABLE); // woken by its child's end
            });
            patient.createStatement().execute("RESET deadlock_timeout");
        }
        assertThat(TestDatabase.row(parent)).containsEntry("status", "cancelled").containsEntry("children_ended", 1);
        assertThat(TestDatabase.status(child.id())).isEqualTo("done");
    }

    /** A parent that started one child and is executing again, and that child, executing too. */
    private ClaimedStep[] parentAndChildExecuting() {
        long parent = insert("parent", null);
        long child = insert("child", parent);
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET children_started = 1"
                + " WHERE id = ?", parent);
        ClaimedStep parentStep = pick("parent").get(0);
        ClaimedStep childStep = pick("child").get(0);
        assertThat(childStep.id()).isEqualTo(child);
        assertThat(childStep.children().parentId()).isEqualTo(parent);
        assertThat(parentStep.children().started()).isOne();
        return new ClaimedStep[] {parentStep, childStep};
    }

    private static Transition awaitChildren(ClaimedStep parent) {
        return Transition.await(parent, List.of(), Outcome.Join.ALL, 0, null, null, "{}", List.of());
    }

    /** An await on all children that also starts {@code count} children of machine "child". */
    private static Transition withChildren(ClaimedStep parent, int count) {
        List<NewChild> children = IntStream.range(0, count)
                .mapToObj(i -> new NewChild(new NewInstance("child", 1, "s", "{}", "q", (short) 0, null, 0, null,
                        SCOPE), true))
                .toList();
        return awaitChildren(parent).startingChildren(children);
    }

    private long insert(String machine, Long parent) {
        long id = repositories.starts().insert(List.of(new NewInstance(machine, 1, "s", "{}", "q", (short) 0, null,
                0, null, SCOPE))).get(0).id();
        if (parent != null) {
            TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET parent_id = ?,"
                    + " cancel_with_parent = true WHERE id = ?", parent, id);
        }
        return id;
    }

    private List<ClaimedStep> pick(String machine) {
        return repositories.claims().pick("q", Map.of(machine, List.of(1)), 10, "node:1", Duration.ofMinutes(1));
    }

    private static long childCount(long parent) {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE parent_id = ?", Long.class, parent);
    }
}
