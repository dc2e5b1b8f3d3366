package dev.durable.chaos;

import dev.durable.MissPolicy;
import dev.durable.Outcome;
import dev.durable.Schedule;
import dev.durable.Signal;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The machine the chaos nodes run. Its path is fixed by the plan in its state:
 *
 * <pre>
 * prepare:next                                  (after sleepMs, a durable timer, when planned)
 * reserve:retry x retries, reserve:next         (explicit Outcome.retry)
 * charge:error x errors, charge:next            (a thrown exception; the error handler returns retry)
 * wait:await, [wait:timeout,] wait:next         (parks on signal "go", with a deadline of deadlineMs when planned;
 *                                                a fired deadline re-parks without one; woken by the driver's signal)
 * finish:done
 * </pre>
 *
 * Every committed outcome appends one {@link Entry} to the state's history, naming the claim (lease token) that
 * produced it, so the final result is the exact list of committed transitions. Every execution of a step (committed
 * or not) is written to the effect log, outside the engine's transaction, before the step returns.
 */
public final class ChaosMachine {

    public static final String NAME = "chaos";
    public static final String QUEUE = "chaos";
    public static final String SIGNAL = "go";

    /** The planned shape of one instance and the history of its committed outcomes. */
    public record State(int retries, int errors, int sleepMs, int deadlineMs, List<Entry> history) {

        public State {
            history = List.copyOf(history);
        }

        State with(Entry entry) {
            List<Entry> longer = new ArrayList<>(history);
            longer.add(entry);
            return new State(retries, errors, sleepMs, deadlineMs, longer);
        }

        long count(String step, String outcome) {
            return history.stream().filter(e -> e.step().equals(step) && e.outcome().equals(outcome)).count();
        }
    }

    /**
     * One committed outcome.
     *
     * @param token  the lease token of the claim whose outcome this is
     * @param node   the node that ran it
     * @param detail what the woken {@code wait} step saw: {@code nonce=<nonce> awaited=<n>}
     */
    public record Entry(String step, String outcome, int attempt, long token, String node, @Nullable String detail) {

        /** {@code step:outcome}, the unit of the expected path. */
        public String label() {
            return step + ":" + outcome;
        }
    }

    /** The payload of the driver's signal. */
    public record Go(String nonce) {
    }

    /** Thrown by {@code charge} as planned; the error handler turns it into a retry. */
    static final class PlannedFailure extends Exception {

        PlannedFailure(String message) {
            super(message);
        }
    }

    /**
     * How long a step works: a random time between {@code minMillis} and {@code maxMillis}, except that
     * {@code longPermille} executions in a thousand take {@code longMillis}.
     */
    public record Pacing(int minMillis, int maxMillis, int longPermille, int longMillis) {

        static final Pacing NONE = new Pacing(0, 0, 0, 0);

        long next() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            if (longPermille > 0 && random.nextInt(1000) < longPermille) {
                return longMillis;
            }
            return maxMillis <= minMillis ? minMillis : random.nextInt(minMillis, maxMillis + 1);
        }
    }

    private static final Duration RETRY_DELAY = Duration.ofMillis(30);

    private final EffectLog effects;
    private final String node;
    private final Pacing pacing;

    private ChaosMachine(EffectLog effects, String node, Pacing pacing) {
        this.effects = effects;
        this.node = node;
        this.pacing = pacing;
    }

    /**
     * The paths an instance planned with {@code retries}, {@code errors} and an await deadline of {@code deadlineMs}
     * may commit: the expected one, and with a deadline also the one where the deadline fired first.
     */
    public static List<List<String>> allowedPaths(int retries, int errors, int deadlineMs) {
        List<String> path = expectedPath(retries, errors);
        if (deadlineMs <= 0) {
            return List.of(path);
        }
        List<String> timedOut = new ArrayList<>(path);
        timedOut.add(timedOut.indexOf("wait:await") + 1, "wait:timeout");
        return List.of(path, timedOut);
    }

    /** The expected path of an instance planned with {@code retries} and {@code errors}. */
    public static List<String> expectedPath(int retries, int errors) {
        List<String> path = new ArrayList<>();
        path.add("prepare:next");
        for (int k = 0; k < retries; k++) {
            path.add("reserve:retry");
        }
        path.add("reserve:next");
        for (int k = 0; k < errors; k++) {
            path.add("charge:error");
        }
        path.add("charge:next");
        path.add("wait:await");
        path.add("wait:next");
        path.add("finish:done");
        return path;
    }

    /** The machine, for a node whose steps log to {@code effects} and work as long as {@code pacing} says. */
    public static MachineDefinition definition(EffectLog effects, String node, Pacing pacing) {
        ChaosMachine machine = new ChaosMachine(effects, node, pacing);
        return MachineDefinition.builder(NAME, 1, State.class)
                .queue(QUEUE)
                .initialStep("prepare")
                .step("prepare", machine::prepare)
                .step("reserve", machine::reserve)
                .step("charge", machine::charge)
                .step("wait", machine::await)
                .step("finish", machine::finish)
                .errorHandler(machine::onError)
                .build();
    }

    /** The machine every tick of {@link #TICK_SCHEDULE} starts an instance of; its one step just ends. */
    static final String TICKER = "chaos-ticker";
    /**
     * A schedule every second that misses no tick ({@link MissPolicy#RUN_EACH}): whatever is killed or restarted,
     * every second of the run must end up with exactly one instance.
     */
    static final String TICK_SCHEDULE = "chaos-tick";

    /** The ticker machine, declaring the every-second schedule. */
    public static MachineDefinition ticker() {
        return MachineDefinition.builder(TICKER, 1, Object.class)
                .queue(QUEUE)
                .step("tick", (state, ctx) -> Outcome.done())
                .schedule(Schedule.cron(TICK_SCHEDULE, "* * * * * *").missPolicy(MissPolicy.RUN_EACH))
                .build();
    }

    /** The machine for a client that only starts instances and sends signals (its steps never run). */
    public static MachineDefinition clientDefinition() {
        return definition(EffectLog.NONE, "client", Pacing.NONE);
    }

    private Outcome prepare(@Nullable State state, StepContext ctx) throws Exception {
        State s = require(state);
        work(ctx, "next");
        return Outcome.next("reserve", s.with(entry(ctx, "next", null)), Duration.ofMillis(s.sleepMs()));
    }

    private Outcome reserve(@Nullable State state, StepContext ctx) throws Exception {
        State s = require(state);
        if (s.count("reserve", "retry") < s.retries()) {
            work(ctx, "retry");
            return Outcome.retry(s.with(entry(ctx, "retry", null)), RETRY_DELAY);
        }
        work(ctx, "next");
        return Outcome.next("charge", s.with(entry(ctx, "next", null)));
    }

    private Outcome charge(@Nullable State state, StepContext ctx) throws Exception {
        State s = require(state);
        if (s.count("charge", "error") < s.errors()) {
            work(ctx, "throw");
            throw new PlannedFailure("planned failure " + (s.count("charge", "error") + 1) + " of " + s.errors());
        }
        work(ctx, "next");
        return Outcome.next("wait", s.with(entry(ctx, "next", null)));
    }

    private Outcome await(@Nullable State state, StepContext ctx) throws Exception {
        State s = require(state);
        List<Signal> awaited = ctx.awaited();
        if (awaited.isEmpty() && ctx.timedOut()) {
            // The deadline fired before the signal: wait on, without a deadline, for the signal that must come.
            work(ctx, "timeout");
            return Outcome.await(SIGNAL, s.with(entry(ctx, "timeout", null)));
        }
        if (awaited.isEmpty()) {
            work(ctx, "await");
            State parked = s.with(entry(ctx, "await", null));
            return s.deadlineMs() > 0 && s.count("wait", "timeout") == 0
                    ? Outcome.await(SIGNAL, parked, Duration.ofMillis(s.deadlineMs()))
                    : Outcome.await(SIGNAL, parked);
        }
        Go go = awaited.get(0).payload(Go.class);
        String detail = "nonce=" + (go == null ? "null" : go.nonce()) + " awaited=" + awaited.size();
        work(ctx, "next");
        return Outcome.next("finish", s.with(entry(ctx, "next", detail)));
    }

    private Outcome finish(@Nullable State state, StepContext ctx) throws Exception {
        State s = require(state);
        work(ctx, "done");
        return Outcome.done(s.with(entry(ctx, "done", null)));
    }

    /**
     * The planned failure becomes a retry recorded in the history. Anything else is unexpected: it is recorded as
     * such, so that if it were ever committed the path check would show it. (An interrupt because the lease was lost
     * or the node is stopping is expected to be thrown here, but its outcome is fenced or discarded, never applied.)
     */
    private Outcome onError(Exception error, @Nullable State state, StepContext ctx) {
        State s = require(state);
        if (error instanceof PlannedFailure) {
            return Outcome.retry(s.with(entry(ctx, "error", null)), RETRY_DELAY);
        }
        return Outcome.retry(s.with(entry(ctx, "unexpected " + error, null)), RETRY_DELAY);
    }

    /** One execution: logged at its start, a little work, logged at its end (before the outcome is written). */
    private void work(StepContext ctx, String outcome) throws InterruptedException {
        effects.begin(ctx);
        long pause = pacing.next();
        if (pause > 0) {
            Thread.sleep(pause);
        }
        effects.end(ctx, outcome);
    }

    private Entry entry(StepContext ctx, String outcome, @Nullable String detail) {
        return new Entry(ctx.step(), outcome, ctx.attempt(), ctx.leaseToken(), node, detail);
    }

    private static State require(@Nullable State state) {
        if (state == null) {
            throw new IllegalStateException("a chaos instance always has a state");
        }
        return state;
    }
}
