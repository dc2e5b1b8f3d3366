package dev.durable.runtime.deploy;

import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployCheck.Verdict;
import dev.durable.runtime.DeployCheck.Verdict.Kind;
import dev.durable.runtime.step.StatePreparation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What this node's code would do with the stored rows of one (machine, version, step), judged from sample states
 * before any of them is picked: the one classifier of the deploy check (docs/DESIGN.md, "The deploy check"), whether
 * it reads the database (the sampled states as stored) or an exported report (a skeleton document per shape). It asks
 * {@link StatePreparation}, the code that prepares every picked row before its step runs, so its verdict is the
 * runtime's: a row classified {@link Kind#BINDS_LOSSILY} is a row the runtime would suspend, one classified
 * {@link Kind#RUNNABLE} one it would run (perhaps after an upcast, or under a step's current name). It runs nothing and
 * reads no database.
 */
public final class DeployClassifier {

    /** The longest reason a verdict carries: one line, enough to recognise it; it goes into a log line. */
    static final int MAX_DETAIL = 300;

    private final MachineRegistry machines;
    private final StatePreparation preparation;

    public DeployClassifier(MachineRegistry machines, JsonCodec codec) {
        this.machines = machines;
        this.preparation = new StatePreparation(machines, codec);
    }

    /**
     * The verdict on the rows of {@code machine} at {@code version} and {@code step}, from {@code sampleStates} (their
     * stored JSON, a {@code null} for a SQL {@code NULL} state; no sample at all is judged as one NULL state): the
     * worst of the samples' verdicts, with every stored property any sample would lose when it binds lossily.
     */
    public Verdict classify(String machine, int version, String step, List<@Nullable String> sampleStates) {
        List<@Nullable String> samples = sampleStates.isEmpty() ? Arrays.asList((String) null) : sampleStates;
        Verdict worst = null;
        Set<String> dropped = new LinkedHashSet<>();
        int unreadable = 0;
        for (String sample : samples) {
            Verdict one = classifyOne(machine, version, step, sample);
            dropped.addAll(one.droppedPaths());
            unreadable += one.kind() == Kind.DOES_NOT_BIND ? 1 : 0;
            if (worst == null || severity(one.kind()) > severity(worst.kind())) {
                worst = one;
            }
        }
        return switch (worst.kind()) {
            case BINDS_LOSSILY -> new Verdict(worst.kind(), shorten(worst.reason().replace(
                    worst.droppedPaths().toString(), dropped.toString())), new ArrayList<>(dropped),
                    worst.runsAsVersion(), worst.runsAsStep());
            case DOES_NOT_BIND -> new Verdict(worst.kind(), shorten(unreadable + " of " + samples.size()
                    + " sampled states do not read: " + worst.reason()), List.of(), worst.runsAsVersion(),
                    worst.runsAsStep());
            default -> worst;
        };
    }

    /**
     * Which sample's verdict is the group's: a row that is not picked at all outweighs one whose upcast fails, which
     * outweighs one that does not read, one that reads lossily, one at a missing step, one that runs.
     */
    private static int severity(Kind kind) {
        return switch (kind) {
            case RUNNABLE -> 0;
            case STEP_MISSING -> 1;
            case BINDS_LOSSILY -> 2;
            case DOES_NOT_BIND -> 3;
            case UPCAST_FAILED -> 4;
            case VERSION_NOT_REGISTERED -> 5;
        };
    }

    private Verdict classifyOne(String machine, int version, String step, @Nullable String state) {
        StatePreparation.Prepared prepared = preparation.prepare(machine, version, step, state);
        if (prepared instanceof StatePreparation.Unregistered) {
            Set<Integer> runs = machines.runnableVersions(machine);
            return new Verdict(Kind.VERSION_NOT_REGISTERED, shorten(runs.isEmpty()
                    ? "this code does not run machine " + machine
                    : "this code registers " + machine + " " + runs.stream().sorted().map(v -> "v" + v).toList()
                            + ", not v" + version), List.of(), null, null);
        }
        if (prepared instanceof StatePreparation.Refused refused) {
            MachineDefinition definition = refused.definition();
            String runsAs = definition.currentStepName(step);
            @Nullable Integer upcastTo = otherVersion(definition, version);
            @Nullable String renamed = runsAs != null && !runsAs.equals(step) ? runsAs : null;
            if (refused.refusal() == StatePreparation.Refusal.LOSSY) {
                // The runtime's reason says what it did with a row (suspended it); a check says what reading drops.
                return new Verdict(Kind.BINDS_LOSSILY, shorten("reading the stored state"
                        + (upcastTo == null ? "" : ", upcast to v" + upcastTo + ",") + " as "
                        + definition.stateType().getTypeName() + " would drop " + refused.droppedPaths()
                        + ", which it has no place for"), refused.droppedPaths(), upcastTo, renamed);
            }
            return new Verdict(Kind.UPCAST_FAILED, shorten(refused.reason()), List.of(), upcastTo, renamed);
        }
        StatePreparation.Ready ready = (StatePreparation.Ready) prepared;
        MachineDefinition definition = ready.definition();
        @Nullable String renamed = ready.step().equals(step) ? null : ready.step();
        if (ready.stepDefinition() == null) { // first: without the step, the state has nothing to be read for
            return new Verdict(Kind.STEP_MISSING, shorten(definition.describe() + " declares the steps "
                    + definition.steps().keySet() + (definition.formerStepNames().isEmpty() ? ""
                            : " (former names " + definition.formerStepNames().keySet() + ")")
                    + ", not '" + step + "'"), List.of(), otherVersion(definition, version), renamed);
        }
        if (ready.unreadable() != null) {
            return new Verdict(Kind.DOES_NOT_BIND, shorten(ready.unreadable().getMessage()), List.of(),
                    otherVersion(definition, version), renamed);
        }
        List<String> how = new ArrayList<>();
        if (definition.version() != version) {
            how.add("upcast from v" + version + " to v" + definition.version());
        }
        if (renamed != null) {
            how.add("step '" + step + "' runs as '" + renamed + "'");
        }
        return new Verdict(Kind.RUNNABLE, String.join("; ", how), List.of(), otherVersion(definition, version),
                renamed);
    }

    /** The version the rows run as when an upcast brings them to it; null when they run on their own. */
    private static @Nullable Integer otherVersion(MachineDefinition definition, int storedVersion) {
        return definition.version() == storedVersion ? null : definition.version();
    }

    /** The first line of {@code text}, at most {@value #MAX_DETAIL} characters. */
    static String shorten(@Nullable String text) {
        if (text == null) {
            return "";
        }
        String line = text.lines().findFirst().orElse("").strip();
        return line.length() <= MAX_DETAIL ? line : line.substring(0, MAX_DETAIL - 1) + "…";
    }
}
