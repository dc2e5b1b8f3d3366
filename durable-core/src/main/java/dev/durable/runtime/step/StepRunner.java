package dev.durable.runtime.step;

import dev.durable.Child;
import dev.durable.Inbox;
import dev.durable.Outcome;
import dev.durable.Signal;
import dev.durable.StepContext;
import dev.durable.UnstorableValueException;
import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.ErrorHandler;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
import dev.durable.machine.StepDefinition;
import dev.durable.machine.StepFailureException;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.support.StoredValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Runs the user's code for one claimed step and turns what it decided into a validated, serialized
 * {@link Transition}. No database access happens here, but for the read of a parent's children that a step makes
 * when it asks for them ({@link StepContext#children()}).
 *
 * <p>The error path (docs/DESIGN.md, "Outcomes"): whatever keeps a step from producing a usable outcome (it throws, it
 * times out, it returns {@code null} or an invalid outcome, its step is unknown, its state unreadable) goes to the
 * machine's error handler, whose outcome is used instead; with no handler (or a handler that returns
 * {@link Outcome#retryByPolicy(Object)}) the step's retry policy decides: a retry after its delay, or the instance
 * fails (docs/DESIGN.md, "Retry policies"). If the handler itself throws, the instance fails with both errors. An
 * {@link Error} is not handled here: it propagates and the step is treated like a crash.
 *
 * <p>Before anything runs, the row is prepared ({@link StatePreparation}): a row stored by older code is upcast and its
 * step renamed, and its state read. A row whose state would lose stored properties, or whose upcast failed, runs
 * nothing at all, not even the error handler (whose outcome could write the narrowed state back): it is suspended, or
 * failed, as {@link EngineSettings#lossyState()} says (docs/DESIGN.md, "Suspension").
 */
public final class StepRunner {

    /**
     * The step being run, as the runner sees it: its claimed row, and whether a timer interrupted it for running longer
     * than its timeout. The queue's running step is one; the runner knows nothing of threads, slots or claims.
     */
    public interface Running {

        ClaimedStep claimed();

        boolean timedOut();
    }

    /**
     * How a step ended, ready to commit: the transition its outcome writes, and for the listeners the outcome's kind
     * and the error (docs/DESIGN.md, "Glossary": outcome, transition, fate).
     *
     * @param outcome         what the step or its error handler decided; {@code null} when nothing ran (a suspension)
     * @param error           why the error path was taken, or what made the row refused
     * @param retriedByPolicy whether the transition is a retry the step's retry policy decided
     */
    public record Ending(Transition transition, Outcome.@Nullable Kind outcome, @Nullable Throwable error,
            boolean retriedByPolicy) {

        Ending(Transition transition, Outcome.@Nullable Kind outcome, @Nullable Throwable error) {
            this(transition, outcome, error, false);
        }

        /** Whether the ending suspends the instance instead of running its step. */
        public boolean suspends() {
            return transition.suspension() != null;
        }

        /** The same ending, committing {@code changed} instead. */
        Ending with(Transition changed) {
            return new Ending(changed, outcome, error, retriedByPolicy);
        }
    }

    private static final int MAX_ERROR_LENGTH = 4000;
    private static final String NOTHING_WRITTEN = "the step takes the error path";

    private final MachineRegistry machines;
    private final JsonCodec codec;
    private final StoredValues values;
    private final StatePreparation preparation;
    private final EngineSettings.LossyState lossyState;
    private final @Nullable Duration defaultTimeout;
    private final RetryPolicy defaultRetryPolicy;
    private final DefaultStepContext.ChildrenReader children;
    /** Computes the history's patches; {@code null} when the history or its patches are off. */
    private final @Nullable StatePatches patches;

    /**
     * @param defaultRetryPolicy the engine's retry policy, for the steps of machines that declare none
     * @param patchMaxBytes      the longest patch a history entry records ({@code history.patchMaxBytes}); 0 when
     *                           the history or its patches are off, and no patch is computed
     * @param children           reads a parent's children when its step asks for them ({@link StepContext#children()}):
     *                           the one database read a step can make through the engine, and only when it asks
     */
    public StepRunner(MachineRegistry machines, JsonCodec codec, StoredValues values,
            EngineSettings.LossyState lossyState, @Nullable Duration defaultTimeout, RetryPolicy defaultRetryPolicy,
            int patchMaxBytes, DefaultStepContext.ChildrenReader children) {
        this.machines = machines;
        this.codec = codec;
        this.values = values;
        this.preparation = new StatePreparation(machines, codec);
        this.lossyState = lossyState;
        this.defaultTimeout = defaultTimeout;
        this.defaultRetryPolicy = defaultRetryPolicy;
        this.children = children;
        this.patches = patchMaxBytes > 0 ? new StatePatches(patchMaxBytes) : null;
    }

    /** The timeout of the claimed step: the step's, else its machine's, else the engine's; null for none. */
    public @Nullable Duration timeoutOf(ClaimedStep claimed) {
        MachineDefinition machine = preparation.definitionFor(claimed.machine(), claimed.version());
        String name = machine == null ? null : machine.currentStepName(claimed.step());
        StepDefinition step = name == null ? null : machine.step(name);
        Duration own = machine == null || step == null ? null : machine.timeoutOf(step);
        return own != null ? own : defaultTimeout;
    }

    public Ending run(Running running) {
        ClaimedStep stored = running.claimed();
        StatePreparation.Prepared prepared = preparation.prepare(stored.machine(), stored.version(), stored.step(),
                stored.stateJson());
        if (prepared instanceof StatePreparation.Unregistered) {
            throw new IllegalStateException("Picked a row of unregistered machine " + stored.machine() + " v"
                    + stored.version());
        }
        if (prepared instanceof StatePreparation.Refused refused) {
            return refuse(stored, refused);
        }
        StatePreparation.Ready ready = (StatePreparation.Ready) prepared;
        Upgrade upgrade = ready.upgrade();
        // The step runs as what it is now: its context, its history and its messages name the current version and
        // step; the commit writes them into the row.
        ClaimedStep claimed = upgrade == null ? stored : stored.upgradedTo(upgrade);
        Ending ending = run(running, claimed, ready);
        if (upgrade != null) {
            ending = ending.with(ending.transition().upgrading(upgrade));
        }
        return patches == null ? ending : ending.with(patched(ending.transition(), stored.stateJson(), upgrade));
    }

    /**
     * {@code transition} with the patches its history entry records (docs/DESIGN.md, "History", patches): the upcast's,
     * from the stored state to the upcast one, and the step's, from the state it ran on to the one it writes. A state
     * that did not change records none. A patch that cannot be computed is left out: it must never fail the step.
     */
    private Transition patched(Transition transition, @Nullable String storedJson, @Nullable Upgrade upgrade) {
        StatePatches patches = Objects.requireNonNull(this.patches);
        String upcastJson = upgrade == null ? null : upgrade.stateJson();
        try {
            String upcastPatch = upcastJson == null ? null : patches.between(storedJson, upcastJson);
            String patch = patches.between(upcastJson != null ? upcastJson : storedJson, transition.stateJson());
            return patch == null && upcastPatch == null ? transition : transition.patched(patch, upcastPatch);
        } catch (RuntimeException e) {
            return transition;
        }
    }

    /**
     * A row whose step must not run: suspended, or failed, as the lossy-state setting says; its stored state, version
     * and step are left as they are.
     */
    private Ending refuse(ClaimedStep claimed, StatePreparation.Refused refused) {
        String reason = clean(refused.reason());
        if (lossyState == EngineSettings.LossyState.FAIL) {
            return new Ending(Transition.stop(claimed, reason), Outcome.Kind.STOP, refused.cause());
        }
        return new Ending(Transition.suspend(claimed, reason), null, refused.cause());
    }

    private Ending run(Running running, ClaimedStep claimed, StatePreparation.Ready ready) {
        MachineDefinition machine = ready.definition();
        DefaultStepContext context = new DefaultStepContext(claimed, inbox(claimed), children, machine);
        StepDefinition step = ready.stepDefinition();
        RetryPolicy own = step == null ? machine.retryPolicy() : machine.retryPolicyOf(step);
        RetryPolicy policy = own != null ? own : defaultRetryPolicy;

        Object state = ready.state();
        boolean stateReadable = ready.unreadable() == null;
        Exception failure = null;
        if (!stateReadable) {
            JsonCodecException e = ready.unreadable();
            failure = new StepFailureException.UnreadableState("The state of instance " + claimed.id() + " ("
                    + machine.describe() + ", step '" + claimed.step() + "') cannot be read as "
                    + machine.stateType().getTypeName() + "; the stored JSON is kept: " + e.getMessage(), e);
        }
        if (failure == null && step == null) {
            failure = new StepFailureException.UnknownStep("Instance " + claimed.id() + " is at step '"
                    + claimed.step() + "', which " + machine.describe() + " does not declare (steps: "
                    + machine.steps().keySet() + ")");
        }
        if (failure == null) {
            try {
                Outcome outcome = step.function().apply(state, context);
                failure = timeoutOf(running, step, null);
                if (failure == null) {
                    return encode(context, machine, policy, outcome, stateReadable, null);
                }
            } catch (Exception e) {
                Exception timeout = timeoutOf(running, step, e);
                failure = timeout != null ? timeout : e;
            }
        }
        return handleError(claimed, machine, policy, state, stateReadable, context, failure);
    }

    /** A timeout failure if the step was interrupted for running too long, else null. */
    private @Nullable Exception timeoutOf(Running running, StepDefinition step, @Nullable Exception cause) {
        if (!running.timedOut()) {
            return null;
        }
        String message = "Step '" + step.name() + "' of instance " + running.claimed().id()
                + " ran longer than its timeout of " + timeoutOf(running.claimed()) + " and was interrupted";
        return cause == null ? new StepFailureException.Timeout(message)
                : new StepFailureException.Timeout(message, cause);
    }

    private Ending handleError(ClaimedStep claimed, MachineDefinition machine, RetryPolicy policy,
            @Nullable Object state, boolean stateReadable, DefaultStepContext context, Exception failure) {
        // An interrupt that ended the step must not also cut short its error handler.
        Thread.interrupted();
        ErrorHandler<Object> handler = machine.errorHandler();
        if (handler == null) {
            // The stored state stays as it was before the failed run.
            return byPolicy(claimed, policy, failure, null);
        }
        try {
            Outcome outcome = handler.onError(failure, state, context);
            return encode(context, machine, policy, outcome, stateReadable, failure);
        } catch (Exception handlerError) {
            String reason = describe(failure) + "; then the error handler failed: " + describe(handlerError);
            return new Ending(Transition.stop(claimed, reason), Outcome.Kind.STOP, failure);
        }
    }

    /**
     * Checks {@code outcome} against the machine and serializes it.
     *
     * @throws StepFailureException.InvalidOutcome if it cannot be used
     */
    private Ending encode(DefaultStepContext context, MachineDefinition machine, RetryPolicy policy,
            @Nullable Outcome outcome, boolean stateReadable, @Nullable Exception failure) {
        ClaimedStep claimed = context.claimed();
        if (outcome == null) {
            throw new StepFailureException.InvalidOutcome(where(claimed, machine)
                    + " returned null; it must return an Outcome");
        }
        Ending ending = encodeOutcome(context, machine, policy, outcome, stateReadable, failure);
        if (outcome.children().isEmpty()) {
            return ending;
        }
        List<NewChild> children = new ArrayList<>(outcome.children().size());
        for (Child child : outcome.children()) {
            children.add(child(claimed, machine, child));
        }
        return ending.with(ending.transition().startingChildren(children));
    }

    private Ending encodeOutcome(DefaultStepContext context, MachineDefinition machine, RetryPolicy policy,
            Outcome outcome, boolean stateReadable, @Nullable Exception failure) {
        ClaimedStep claimed = context.claimed();
        List<Long> awaited = awaitedIds(claimed);
        if (outcome instanceof Outcome.Next next) {
            if (machine.step(next.step()) == null) {
                throw new StepFailureException.InvalidOutcome(where(claimed, machine) + " returned next('"
                        + next.step() + "'), a step " + machine.describe() + " does not declare (steps: "
                        + machine.steps().keySet() + ")");
            }
            String state = stateJson(claimed, machine, next.state(), stateReadable);
            return new Ending(Transition.next(claimed, next.step(), state, awaited, next.delay().toMillis(),
                    next.at()),
                    Outcome.Kind.NEXT, failure);
        }
        if (outcome instanceof Outcome.Retry retry) {
            String state = stateJson(claimed, machine, retry.state(), stateReadable);
            if (retry.delay() == null) {
                return byPolicy(claimed, policy, failure, state);
            }
            String error = failure == null ? null : describe(failure);
            return new Ending(Transition.retry(claimed, state, retry.delay().toMillis(), error), Outcome.Kind.RETRY,
                    failure);
        }
        if (outcome instanceof Outcome.Await await) {
            checkAwaitedDeclared(claimed, machine, await.signals());
            String state = stateJson(claimed, machine, await.state(), stateReadable);
            Long timeoutMillis = await.timeout() == null ? null : await.timeout().toMillis();
            return new Ending(Transition.await(claimed, await.signals(), await.join(), context.childrenSeen(),
                    timeoutMillis, await.deadline(), state, awaited), Outcome.Kind.AWAIT, failure);
        }
        if (outcome instanceof Outcome.Done done) {
            String result;
            try {
                result = values.value(done.result(), () -> where(claimed, machine) + " returned a result that",
                        NOTHING_WRITTEN);
            } catch (UnstorableValueException e) {
                throw new StepFailureException.InvalidOutcome(e.getMessage(), e);
            }
            return new Ending(Transition.done(claimed, result), Outcome.Kind.DONE, failure);
        }
        Outcome.Stop stop = (Outcome.Stop) outcome;
        return new Ending(Transition.stop(claimed, clean(stop.reason())), Outcome.Kind.STOP, failure);
    }

    /**
     * What the step's retry policy makes of {@code failure} (docs/DESIGN.md, "Retry policies"), or of a step's own
     * {@link Outcome#retryByPolicy(Object)} when {@code failure} is null: a retry after the policy's delay for the row's
     * attempt, storing {@code stateJson} ({@code null} keeps the stored state); or the instance fails, when the failure
     * cannot succeed on another run (an invalid outcome, an unknown step, an unreadable state), when its type is
     * non-retryable, or when the policy gives up.
     */
    private static Ending byPolicy(ClaimedStep claimed, RetryPolicy policy, @Nullable Exception failure,
            @Nullable String stateJson) {
        if (failure != null && !mayRetry(failure)) {
            return fails(claimed, describe(failure), failure);
        }
        Class<? extends Throwable> nonRetryable = failure == null ? null : policy.nonRetryableTypeOf(failure);
        if (nonRetryable != null) {
            return fails(claimed, describe(failure) + "; not retried: the retry policy declares "
                    + nonRetryable.getName() + " non-retryable", failure);
        }
        Duration delay = policy.delayAfter(claimed.attempt());
        if (delay == null) {
            if (!policy.retries() && failure != null) {
                return fails(claimed, describe(failure), failure); // none: as before there were policies
            }
            long runs = claimed.attempt() + 1L;
            return fails(claimed, "retry policy gave up after " + runs + (runs == 1 ? " attempt" : " attempts")
                    + " (at most " + policy.maxAttempts() + ")"
                    + (failure == null ? "" : "; last error: " + describe(failure)), failure);
        }
        return new Ending(Transition.retry(claimed, stateJson, delay.toMillis(),
                failure == null ? null : describe(failure)), Outcome.Kind.RETRY, failure, true);
    }

    /**
     * Whether another run could succeed where this one failed: not after an invalid outcome, an unknown step or an
     * unreadable state, which the same code on the same row reaches again; after a timeout and whatever the step threw.
     */
    private static boolean mayRetry(Exception failure) {
        return !(failure instanceof StepFailureException) || failure instanceof StepFailureException.Timeout;
    }

    private static Ending fails(ClaimedStep claimed, String reason, @Nullable Exception failure) {
        return new Ending(Transition.stop(claimed, clean(reason)), Outcome.Kind.STOP, failure);
    }

    /**
     * An await of a name its machine does not declare could only end by its deadline: no signal of that name can be
     * delivered (docs/DESIGN.md, "Declared signals"). What a step awaits is known only now, when it returns.
     */
    private static void checkAwaitedDeclared(ClaimedStep claimed, MachineDefinition machine, List<String> names) {
        if (!machine.declaresSignals()) {
            return;
        }
        for (String name : names) {
            if (machine.signalType(name) == null) {
                throw new StepFailureException.InvalidOutcome(where(claimed, machine) + " awaits signal '" + name
                        + "', which " + machine.describe() + " does not declare (it accepts " + (machine.signals()
                                .isEmpty() ? "none" : String.join(", ", machine.signals().keySet()))
                        + "): no signal of that name can be delivered to it");
            }
        }
    }

    /**
     * The row of a child the outcome starts: a machine this node registers, with a state of its type that can be
     * stored; anything else is an invalid outcome, and no child of it is written.
     */
    private NewChild child(ClaimedStep claimed, MachineDefinition machine, Child child) {
        MachineDefinition definition;
        try {
            definition = child.machineName() != null
                    ? machines.resolve(child.machineName(), child.options().version())
                    : machines.resolve(Objects.requireNonNull(child.machineType()), child.options().version());
        } catch (IllegalArgumentException e) {
            throw new StepFailureException.InvalidOutcome(where(claimed, machine) + " starts a child that this node "
                    + "cannot start: " + e.getMessage(), e);
        }
        try {
            NewInstance row = NewInstance.of(definition, child.state(), child.options(), values,
                    () -> where(claimed, machine) + " starts a child of " + definition.describe() + " whose state",
                    NOTHING_WRITTEN);
            return new NewChild(row, child.cancelledWithParent());
        } catch (IllegalArgumentException e) {
            throw new StepFailureException.InvalidOutcome(where(claimed, machine) + " starts a child that cannot "
                    + "be stored: " + e.getMessage(), e);
        }
    }

    /** The state's JSON, or null to keep the stored JSON (a null state when the stored one was unreadable). */
    private @Nullable String stateJson(ClaimedStep claimed, MachineDefinition machine, @Nullable Object state,
            boolean stateReadable) {
        if (state == null && !stateReadable) {
            return null;
        }
        if (!machine.acceptsState(state)) {
            throw new StepFailureException.InvalidOutcome(where(claimed, machine) + " returned a state of type "
                    + Objects.requireNonNull(state).getClass().getName() + ", but " + machine.describe()
                    + " stores " + machine.stateType().getTypeName());
        }
        try {
            return values.state(machine, state, () -> where(claimed, machine) + " returned a state that",
                    NOTHING_WRITTEN);
        } catch (UnstorableValueException e) {
            throw new StepFailureException.InvalidOutcome(e.getMessage(), e);
        }
    }

    /** Names the step in an error message; built only when there is an error to report. */
    private static String where(ClaimedStep claimed, MachineDefinition machine) {
        return "Step '" + claimed.step() + "' of " + machine.describe() + " (instance " + claimed.id() + ")";
    }

    private Inbox inbox(ClaimedStep claimed) {
        if (claimed.inbox().isEmpty()) {
            return Inbox.EMPTY;
        }
        List<Signal> all = claimed.inbox().stream().<Signal>map(row -> new InboxSignal(row, codec)).toList();
        List<Signal> awaited = all.stream().filter(signal -> claimed.awaits(signal.name())).toList();
        return new Inbox(awaited, all);
    }

    private static List<Long> awaitedIds(ClaimedStep claimed) {
        if (claimed.inbox().isEmpty()) {
            return List.of(); // most steps: no stream to build on the hot path
        }
        return claimed.inbox().stream()
                .filter(signal -> claimed.awaits(signal.name()))
                .map(SignalRow::id)
                .toList();
    }

    /**
     * {@code class: message}, cleaned and bounded for last_error. A database error is described by its root cause's
     * first line: the wrapper's message holds the whole SQL text, and the driver's later lines may quote the
     * values, which can be personal data.
     */
    public static String describe(Throwable error) {
        if (error instanceof DataAccessException dataAccess) {
            Throwable cause = dataAccess.getMostSpecificCause();
            String message = cause.getMessage() == null ? "" : cause.getMessage().lines().findFirst().orElse("");
            return clean(cause.getClass().getName() + (message.isEmpty() ? "" : ": " + message));
        }
        String message = error.getMessage();
        return clean(error.getClass().getName() + (message == null ? "" : ": " + message));
    }

    /** PostgreSQL text cannot hold NUL; a reason is bounded so a huge message cannot bloat the row. */
    private static String clean(String text) {
        String cleaned = text.replace('\u0000', ' ');
        return cleaned.length() <= MAX_ERROR_LENGTH ? cleaned : cleaned.substring(0, MAX_ERROR_LENGTH) + "...";
    }
}
