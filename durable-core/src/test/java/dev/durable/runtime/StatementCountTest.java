package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.Outcome;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.control.StartRepository;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewChild;
import dev.durable.runtime.step.NewInstance;
import dev.durable.runtime.step.Transition;
import dev.durable.testing.CountingDataSource;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The statement-count contract: the cost of the hot path in statements does not grow with the batch. A pick of
 * 1 row and of 50 rows is one statement each; a signal delivery is one statement; a batch of next (or retry)
 * outcomes is one statement without a transaction around it, and so is a batch of inline continuations; a batch
 * of terminal outcomes is two statements in one transaction; a heartbeat for many claims is one statement; a step
 * starting 10,000 children is three statements, and the ends of a batch of children three.
 */
class StatementCountTest {

    private final CountingDataSource counting = new CountingDataSource(TestDatabase.dataSource());
    private final DurableSchema schema = DurableSchema.named(TestDatabase.SCHEMA);
    private final StatementPlanning planning = new StatementPlanning(counting.dataSource(), schema);
    private static final History HISTORY = Repositories.HISTORY;
    private final ClaimRepository claims = new ClaimRepository(planning, HISTORY);
    private final TransitionRepository transitions = new TransitionRepository(counting.dataSource(), planning, HISTORY);
    private final SignalRepository signals = new SignalRepository(planning);

    @BeforeEach
    void clean() {
        TestDatabase.clean();
    }

    private void insert(int count) {
        new StartRepository(planning, "test-node", java.time.Duration.ofMinutes(1)).insert(IntStream.range(0, count).mapToObj(i -> new NewInstance("m", 1, "s", "{}", "q", (short) 0,
                null, 0, null, "{runnable,executing,awaiting_signal}")).toList());
        counting.reset();
    }

    private List<ClaimedStep> pick(int limit) {
        return claims.pick("q", Map.of("m", List.of(1)), limit, "node:1", Duration.ofMinutes(1));
    }

    @Test
    void aPickCostsOneStatementWhetherItClaimsOneRowOrFifty() {
        insert(51);

        assertThat(pick(1)).hasSize(1);
        List<String> pickOfOne = counting.statements();
        counting.reset();
        assertThat(pick(50)).hasSize(50);
        List<String> pickOfFifty = counting.statements();

        assertThat(pickOfOne).hasSize(1);
        assertThat(pickOfFifty).hasSize(1);
        assertThat(counting.commits()).isEmpty();
    }

    @Test
    void aSignalDeliveryIsOneStatement() {
        insert(1);

        signals.deliver(1, "paid", "{}", "evt-1");

        assertThat(counting.statements()).hasSize(1);
    }

    @Test
    void aBatchOfFiftyNextOutcomesIsOneStatementWithoutATransaction() {
        insert(50);
        List<ClaimedStep> claimed = pick(50);
        counting.reset();

        var applied = transitions.apply(claimed.stream()
                .map(step -> Transition.next(step, "t", "{}", List.of())).toList(), false).applied();

        assertThat(applied).hasSize(50);
        assertThat(counting.statements()).hasSize(1);
        assertThat(counting.commits()).isEmpty();
    }

    @Test
    void aBatchOfFiftyInlineContinuationsIsOneStatementReturningTheNextSteps() {
        insert(50);
        List<ClaimedStep> claimed = pick(50);
        counting.reset();

        var result = transitions.apply(claimed.stream()
                .map(step -> Transition.next(step, "t", "{}", List.of()).continuing(0)).toList(),
                Duration.ofMinutes(1), false);

        assertThat(result.applied()).hasSize(50);
        assertThat(result.continued().values()).hasSize(50).allSatisfy(step -> assertThat(step.step()).isEqualTo("t"));
        assertThat(counting.statements()).hasSize(1);
        assertThat(counting.commits()).isEmpty();
    }

    @Test
    void aBatchOfFiftyTerminalOutcomesIsTwoStatementsInOneTransaction() {
        insert(50);
        List<ClaimedStep> claimed = pick(50);
        counting.reset();

        var applied = transitions.apply(claimed.stream()
                .map(step -> Transition.done(step, "1")).toList(), false).applied();

        assertThat(applied).hasSize(50);
        assertThat(counting.statements()).hasSize(2);
        assertThat(counting.commits()).hasSize(1);
    }

    @Test
    void aHeartbeatForFiftyClaimsIsOneStatement() {
        insert(50);
        List<Claim> held = pick(50).stream().map(ClaimedStep::claim).toList();
        counting.reset();

        assertThat(claims.heartbeat(held, Duration.ofMinutes(1))).isEmpty();

        assertThat(counting.statements()).hasSize(1);
    }

    /**
     * Fan-out: a step that starts 10,000 children and parks on them commits in three statements (lock the claim,
     * insert every child and count them at the parent, park), in one transaction.
     */
    @Test
    void aStepStartingTenThousandChildrenCommitsInThreeStatements() {
        insert(1);
        ClaimedStep parent = pick(1).get(0);
        List<NewChild> children = IntStream.range(0, 10_000)
                .mapToObj(i -> new NewChild(new NewInstance("m", 1, "s", "{\"line\":" + i + "}", "q", (short) 0,
                        null, 0, null, "{runnable,executing,awaiting_signal}"), true))
                .toList();
        counting.reset();

        long started = System.nanoTime();
        var result = transitions.apply(List.of(Transition.await(parent, List.of(), Outcome.Join.ALL, 0, null, null,
                null, List.of()).startingChildren(children)), false);
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(result.applied()).containsExactly(parent.id());
        assertThat(counting.statements()).hasSize(3);
        assertThat(counting.commits()).hasSize(1);
        assertThat(TestDatabase.row(parent.id())).containsEntry("children_started", 10_000)
                .containsEntry("awaits_children", 10_000);
        System.out.println("fan-out of 10,000 children: 3 statements, " + elapsedMs + " ms");
    }

    /**
     * Fan-in: a batch of children's terminal outcomes is three statements in one transaction (end them, clear their
     * inboxes, count them at their parents), whatever the number of children or parents; the parent whose last child
     * ended wakes in the same statement.
     */
    @Test
    void theEndsOfABatchOfChildrenAreCountedAtTheirParentsInOneStatement() {
        insert(1);
        ClaimedStep parent = pick(1).get(0);
        List<NewChild> children = IntStream.range(0, 50)
                .mapToObj(i -> new NewChild(new NewInstance("m", 1, "s", "{}", "q", (short) 0, null, 0, null,
                        "{runnable,executing,awaiting_signal}"), true))
                .toList();
        transitions.apply(List.of(Transition.await(parent, List.of(), Outcome.Join.ALL, 0, null, null, null,
                List.of()).startingChildren(children)), false);
        List<ClaimedStep> claimed = pick(50);
        counting.reset();

        var result = transitions.apply(claimed.stream().map(step -> Transition.done(step, "1")).toList(),
                false);

        assertThat(result.applied()).hasSize(50);
        assertThat(result.newWork()).containsExactly("q");
        assertThat(counting.statements()).hasSize(3);
        assertThat(counting.commits()).hasSize(1);
        assertThat(TestDatabase.row(parent.id())).containsEntry("status", "runnable")
                .containsEntry("children_ended", 50);
    }

}
