package dev.durable.runtime;

import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What this node's code would do with the stored rows of one (machine, version, step), judged from sample states
 * before any of them is picked: a deploy check (docs/DESIGN.md, "Lossy states"). It asks {@link StatePreparation},
 * the code that prepares every picked row before its step runs, so its verdict is the runtime's: a row classified
 * {@link Verdict#BINDS_LOSSILY} is a row the runtime would suspend, one classified {@link Verdict#RUNNABLE} one it
 * would run. It runs nothing and reads no database.
 */
final class DeployClassifier {

    /** The longest error text a classification carries: one line, enough to recognise it. */
    static final int MAX_DETAIL = 300;

    /**
     * What the rows of a group are to this node, from the best to the worst; the worst verdict of any sample is the
     * group's.
     */
    enum Verdict {
        /** The step runs (perhaps on a newer version after an upcast, or under its current name). */
        RUNNABLE,
        /** The state reads, but the version the row runs on declares no such step (nor former name): error path. */
        STEP_MISSING,
        /** The state reads whole, but would lose stored properties: the instance would be suspended (or failed). */
        BINDS_LOSSILY,
        /** The state cannot be read as the state type: error path ({@code UnreadableState}). */
        DOES_NOT_BIND,
        /** An upcaster threw, returned nothing, or returned what the state type cannot read whole: suspended. */
        UPCAST_FAILED,
        /** This node neither registers the version nor upcasts it: the rows are not picked here (stranded). */
        VERSION_NOT_REGISTERED
    }

    /**
     * The verdict on a group of rows.
     *
     * @param verdict       the worst verdict of any sample state
     * @param runsOnVersion the version the rows' step runs on (their own, or the one they are upcast to); {@code null}
     *                      for {@link Verdict#VERSION_NOT_REGISTERED}
     * @param runsAsStep    the step they run as (their stored step, or its current name); {@code null} for
     *                      {@link Verdict#VERSION_NOT_REGISTERED}
     * @param droppedPaths  {@link Verdict#BINDS_LOSSILY}: every stored property some sample would lose, in order met
     * @param detail        what is wrong, in one line of at most {@value #MAX_DETAIL} characters (the binding or
     *                      upcast error, the steps there are, the versions this node runs); or, for a runnable group,
     *                      how it runs when that is not plain ("upcast from v1 to v2", "step 'send' runs as 'ship'");
     *                      {@code null} otherwise
     */
    record Classification(Verdict verdict, @Nullable Integer runsOnVersion, @Nullable String runsAsStep,
            List<String> droppedPaths, @Nullable String detail) {

        Classification {
            droppedPaths = List.copyOf(droppedPaths);
        }
    }

    private final MachineRegistry machines;
    private final StatePreparation preparation;

    DeployClassifier(MachineRegistry machines, JsonCodec codec) {
        this.machines = machines;
        this.preparation = new StatePreparation(machines, codec);
    }

    /**
     * Classifies the rows of {@code machine} at {@code version} and {@code step}, from {@code sampleStates} (their
     * stored JSON, a {@code null} for a SQL {@code NULL} state; no sample at all is judged as one NULL state).
     */
    Classification classify(String machine, int version, String step, List<@Nullable String> sampleStates) {
        List<@Nullable String> samples = sampleStates.isEmpty() ? Arrays.asList((String) null) : sampleStates;
        Classification worst = null;
        Set<String> dropped = new LinkedHashSet<>();
        for (String sample : samples) {
            Classification one = classifyOne(machine, version, step, sample);
            dropped.addAll(one.droppedPaths());
            if (worst == null || one.verdict().compareTo(worst.verdict()) > 0) {
                worst = one;
            }
        }
        if (worst.verdict() == Verdict.BINDS_LOSSILY) {
            return new Classification(worst.verdict(), worst.runsOnVersion(), worst.runsAsStep(),
                    new ArrayList<>(dropped), worst.detail());
        }
        return worst;
    }

    private Classification classifyOne(String machine, int version, String step, @Nullable String state) {
        StatePreparation.Prepared prepared = preparation.prepare(machine, version, step, state);
        if (prepared instanceof StatePreparation.Unregistered) {
            Set<Integer> runs = machines.runnableVersions(machine);
            return new Classification(Verdict.VERSION_NOT_REGISTERED, null, null, List.of(),
                    shorten(runs.isEmpty() ? "this node does not run machine " + machine
                            : "this node runs " + machine + " versions " + runs + ", and upcasts none from v"
                                    + version));
        }
        if (prepared instanceof StatePreparation.Refused refused) {
            MachineDefinition definition = refused.definition();
            String runsAs = definition.currentStepName(step);
            Verdict verdict = refused.refusal() == StatePreparation.Refusal.LOSSY ? Verdict.BINDS_LOSSILY
                    : Verdict.UPCAST_FAILED;
            return new Classification(verdict, definition.version(), runsAs != null ? runsAs : step,
                    refused.droppedPaths(), shorten(refused.reason()));
        }
        StatePreparation.Ready ready = (StatePreparation.Ready) prepared;
        MachineDefinition definition = ready.definition();
        if (ready.unreadable() != null) {
            return new Classification(Verdict.DOES_NOT_BIND, definition.version(), ready.step(), List.of(),
                    shorten(ready.unreadable().getMessage()));
        }
        if (ready.stepDefinition() == null) {
            return new Classification(Verdict.STEP_MISSING, definition.version(), ready.step(), List.of(),
                    shorten(definition.describe() + " declares no step '" + step + "' (steps: "
                            + definition.steps().keySet() + ", former names: "
                            + definition.formerStepNames().keySet() + ")"));
        }
        List<String> how = new ArrayList<>();
        if (definition.version() != version) {
            how.add("upcast from v" + version + " to v" + definition.version());
        }
        if (!ready.step().equals(step)) {
            how.add("step '" + step + "' runs as '" + ready.step() + "'");
        }
        return new Classification(Verdict.RUNNABLE, definition.version(), ready.step(), List.of(),
                how.isEmpty() ? null : String.join("; ", how));
    }

    /** The first line of {@code text}, at most {@value #MAX_DETAIL} characters. */
    static String shorten(@Nullable String text) {
        if (text == null) {
            return "";
        }
        String line = text.lines().findFirst().orElse("").strip();
        return line.length() <= MAX_DETAIL ? line : line.substring(0, MAX_DETAIL - 3) + "...";
    }
}
