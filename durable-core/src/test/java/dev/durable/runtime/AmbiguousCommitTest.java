package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LostAnswerDataSource;
import dev.durable.testing.LostAnswerDataSource.Loss;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Outcomes whose commit is ambiguous (docs/DESIGN.md, "Fencing", ambiguous commits), forced for real: the connection
 * fails after the server committed the statement or its transaction, or before it was sent, and the committer writes
 * the batch again not knowing which. Either way the history records each transition exactly once, and with inline
 * execution no step of the chain runs twice; a continuation whose first write committed is not recorded again.
 */
class AmbiguousCommitTest {

    record Count(int n) {
    }

    private static final String CONTINUE = "/* durable: continue */";
    private static final String NEXT = "/* durable: next */";
    private static final String TERMINAL = "/* durable: terminal */";

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final List<String> runs = new CopyOnWriteArrayList<>();

    /** loop (to itself, three times: the same step, attempt 0) -> last -> done. */
    private MachineDefinition loop() {
        return MachineDefinition.builder("loop", 1, Count.class)
                .initialStep("loop")
                .step("loop", (state, ctx) -> {
                    runs.add("loop:" + state.n() + ":" + ctx.attempt());
                    return state.n() < 3 ? Outcome.next("loop", new Count(state.n() + 1))
                            : Outcome.next("last", state);
                })
                .step("last", (state, ctx) -> {
                    runs.add("last:" + state.n() + ":" + ctx.attempt());
                    return Outcome.done(state.n());
                })
                .build();
    }

    private DurableEngine engine(LostAnswerDataSource database, boolean inline) {
        MachineDefinition machine = loop();
        return engines.start(DurableEngine.builder(database.dataSource(), MachineRegistry.of(machine))
                .settings(EngineFixture.fastSettings("ambiguous-node", machine).inlineNextSteps(inline).build())
                .build());
    }

    private static final List<Tuple> CHAIN = List.of(
            tuple("loop", Event.NEXT, "loop"), tuple("loop", Event.NEXT, "loop"), tuple("loop", Event.NEXT, "loop"),
            tuple("loop", Event.NEXT, "last"), tuple("last", Event.DONE, null));

    @Test
    void anInlineContinuationWhoseCommitLostItsAnswerIsRecordedOnceAndItsNextStepRunsOnce() {
        // The second continuation (loop -> loop, after one already recorded on this claim) and the done commit on the
        // server; the node hears of neither.
        LostAnswerDataSource database = new LostAnswerDataSource(TestDatabase.dataSource())
                .lose(CONTINUE, 2, Loss.AFTER_COMMIT)
                .lose(TERMINAL, 1, Loss.AFTER_COMMIT);
        DurableEngine engine = engine(database, true);

        long id = engine.client().start("loop", new Count(0)).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(database.lost()).containsExactly(CONTINUE + " AFTER_COMMIT", TERMINAL + " AFTER_COMMIT");
        assertThat(runs).containsExactly("loop:0:0", "loop:1:0", "loop:2:0", "loop:3:0", "last:3:0");
        List<HistoryEntry> history = engine.client().history(id);
        assertThat(history).extracting(HistoryEntry::step, HistoryEntry::event, HistoryEntry::nextStep)
                .containsExactlyElementsOf(CHAIN);
        assertThat(history.subList(0, 4)).extracting(HistoryEntry::status).containsOnly(InstanceStatus.EXECUTING);
        // One claim throughout: the chain never went back to its queue.
        assertThat(history).extracting(HistoryEntry::leaseToken).containsOnly(history.get(0).leaseToken());
        assertThat(engine.stats().picked()).isEqualTo(1);
        assertThat(TestDatabase.row(id)).containsEntry("result", "3").containsEntry("step", "last");
    }

    @Test
    void anInlineContinuationThatNeverReachedTheServerIsWrittenAndRecordedOnceWhenWrittenAgain() {
        LostAnswerDataSource database = new LostAnswerDataSource(TestDatabase.dataSource())
                .lose(CONTINUE, 2, Loss.BEFORE_SENDING)
                .lose(TERMINAL, 1, Loss.BEFORE_SENDING);
        DurableEngine engine = engine(database, true);

        long id = engine.client().start("loop", new Count(0)).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(database.lost()).containsExactly(CONTINUE + " BEFORE_SENDING", TERMINAL + " BEFORE_SENDING");
        assertThat(runs).containsExactly("loop:0:0", "loop:1:0", "loop:2:0", "loop:3:0", "last:3:0");
        List<HistoryEntry> history = engine.client().history(id);
        assertThat(history).extracting(HistoryEntry::step, HistoryEntry::event, HistoryEntry::nextStep)
                .containsExactlyElementsOf(CHAIN);
        assertThat(history).extracting(HistoryEntry::leaseToken).containsOnly(history.get(0).leaseToken());
        assertThat(engine.stats().picked()).isEqualTo(1);
    }

    @Test
    void aNextWhoseCommitLostItsAnswerIsRecordedOnceAndItsStepRunsOnce() {
        LostAnswerDataSource database = new LostAnswerDataSource(TestDatabase.dataSource())
                .lose(NEXT, 2, Loss.AFTER_COMMIT);
        DurableEngine engine = engine(database, false);

        long id = engine.client().start("loop", new Count(0)).id();

        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(database.lost()).containsExactly(NEXT + " AFTER_COMMIT");
        assertThat(runs).containsExactly("loop:0:0", "loop:1:0", "loop:2:0", "loop:3:0", "last:3:0");
        List<HistoryEntry> history = engine.client().history(id);
        assertThat(history).extracting(HistoryEntry::step, HistoryEntry::event, HistoryEntry::nextStep)
                .containsExactlyElementsOf(CHAIN);
        assertThat(history.subList(0, 4)).extracting(HistoryEntry::status).containsOnly(InstanceStatus.RUNNABLE);
        // Each step on a claim of its own.
        assertThat(history).extracting(HistoryEntry::leaseToken).doesNotHaveDuplicates();
    }
}
