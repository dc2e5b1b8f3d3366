package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.test.process.ChildJvm;
import dev.durable.testing.CrashNode;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The three sources of re-execution (docs/DESIGN.md, "Re-execution"), never conflated: an explicit retry; an exception,
 * decided by the error handler; a crash, recovered by the reaper without the handler.
 */
class ReExecutionTest {

    record Tries(int count) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
    private final AtomicInteger handlerCalls = new AtomicInteger();

    @Test
    void explicitRetryRerunsTheSameStepWithTheNextAttempt() {
        MachineDefinition machine = MachineDefinition.builder("retrying", 1, Tries.class)
                .step("call", (state, ctx) -> {
                    attemptsSeen.add(ctx.attempt());
                    return ctx.attempt() < 2 ? Outcome.retry(new Tries(state.count() + 1), Duration.ofMillis(10))
                            : Outcome.done(state.count());
                })
                .build();
        long id = engines.start(machine).client().start("retrying", new Tries(0)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(attemptsSeen).containsExactly(0, 1, 2);
        assertThat(TestDatabase.row(id)).containsEntry("attempt", 2).containsEntry("result", "2");
    }

    private MachineDefinition throwingMachine(dev.durable.machine.ErrorHandler<Tries> handler) {
        return MachineDefinition.builder("throwing", 1, Tries.class)
                .step("call", (state, ctx) -> {
                    attemptsSeen.add(ctx.attempt());
                    if (ctx.attempt() == 0) {
                        throw new IllegalStateException("gateway said 503");
                    }
                    return Outcome.done("recovered");
                })
                .errorHandler(handler)
                .build();
    }

    @Test
    void anExceptionGoesToTheErrorHandlerWhichMayRetry() {
        MachineDefinition machine = throwingMachine((error, state, ctx) -> {
            handlerCalls.incrementAndGet();
            assertThat(error).isInstanceOf(IllegalStateException.class).hasMessage("gateway said 503");
            assertThat(state).isEqualTo(new Tries(0));
            return Outcome.retry(state, Duration.ZERO);
        });
        long id = engines.start(machine).client().start("throwing", new Tries(0)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(handlerCalls).hasValue(1);
        assertThat(attemptsSeen).containsExactly(0, 1);
        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("attempt")).isEqualTo(1);
        // the retry recorded why it happened
        assertThat((String) row.get("last_error")).isEqualTo("java.lang.IllegalStateException: gateway said 503");
    }

    @Test
    void anExceptionGoesToTheErrorHandlerWhichMayStop() {
        MachineDefinition machine = throwingMachine((error, state, ctx) -> {
            handlerCalls.incrementAndGet();
            return Outcome.stop("gave up: " + error.getMessage());
        });
        long id = engines.start(machine).client().start("throwing", new Tries(0)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(handlerCalls).hasValue(1);
        assertThat(TestDatabase.row(id)).containsEntry("last_error", "gave up: gateway said 503")
                .containsEntry("attempt", 0);
    }

    @Test
    void anErrorHandlerThatThrowsFailsTheInstanceWithBothErrors() {
        MachineDefinition machine = throwingMachine((error, state, ctx) -> {
            handlerCalls.incrementAndGet();
            throw new IllegalArgumentException("handler bug");
        });
        long id = engines.start(machine).client().start("throwing", new Tries(0)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(handlerCalls).hasValue(1);
        assertThat((String) TestDatabase.row(id).get("last_error"))
                .isEqualTo("java.lang.IllegalStateException: gateway said 503; then the error handler failed: "
                        + "java.lang.IllegalArgumentException: handler bug");
    }

    /** No error handler and no retry (the default policy retries: RetryByPolicyTest). */
    @Test
    void withoutAnErrorHandlerOrARetryAnExceptionStopsTheInstanceWithItsClassAndMessage() {
        MachineDefinition machine = MachineDefinition.builder("unhandled", 1, Tries.class)
                .step("call", (state, ctx) -> {
                    throw new UnsupportedOperationException("no such payment method");
                })
                .retryPolicy(RetryPolicy.none())
                .build();
        long id = engines.start(machine).client().start("unhandled", new Tries(0)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(TestDatabase.row(id)).containsEntry("last_error",
                "java.lang.UnsupportedOperationException: no such payment method");
    }

    /**
     * A crash: a real node process dies with SIGKILL in the middle of a step. Its lease expires, the reaper of
     * another node returns the row with attempt + 1, the step re-runs from scratch, and the error handler is never
     * called.
     */
    @Test
    void aCrashedStepIsReapedAndRerunWithTheNextAttemptWithoutTheErrorHandler() throws Exception {
        MachineDefinition survivor = CrashNode.machine((state, ctx) -> {
            attemptsSeen.add(ctx.attempt());
            return Outcome.done("ran again");
        });
        survivor = MachineDefinition.builder(CrashNode.MACHINE, 1, Object.class)
                .step("work", survivor.step("work").function())
                .errorHandler((error, state, ctx) -> {
                    handlerCalls.incrementAndGet();
                    return Outcome.stop(error.toString());
                })
                .build();
        long id = engines.clientOnly(survivor).start(CrashNode.MACHINE, null).id();

        TestPostgres postgres = TestPostgres.get();
        try (ChildJvm node = ChildJvm.start(CrashNode.class, postgres.jdbcUrl(), postgres.username(),
                postgres.password(), "doomed", "1000", "300")) {
            assertThat(node.awaitLineStartingWith("STARTED", Duration.ofSeconds(60))).isEqualTo("STARTED " + id + " 0");
            node.kill();
        }
        assertThat(TestDatabase.status(id)).isEqualTo("executing");

        engines.start("survivor", UnaryOperator.identity(), survivor);
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(attemptsSeen).containsExactly(1);
        assertThat(handlerCalls).hasValue(0);
        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row.get("attempt")).isEqualTo(1);
        assertThat((String) row.get("last_error")).startsWith("lease of doomed:").endsWith("expired at step work");
    }
}
