package dev.durable.runtime.deploy;

import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DeployCheck.Verdict;
import dev.durable.runtime.DeployCheck.Verdict.Kind;
import dev.durable.runtime.step.StatePreparation;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
    private final JsonCodec codec;
    private final StatePreparation preparation;

    public DeployClassifier(MachineRegistry machines, JsonCodec codec) {
        this.machines = machines;
        this.codec = codec;
        this.preparation = new StatePreparation(machines, codec);
    }

    /**
     * Whether a machine of this code declares a signal with a payload type: only then are the pending signals'
     * payloads worth reading for a check (docs/DESIGN.md, "Declared signals").
     */
    public boolean judgesPendingPayloads() {
        return machines.all().stream().anyMatch(machine -> machine.signals().values().stream()
                .anyMatch(type -> type != MachineDefinition.NO_PAYLOAD));
    }

    /**
     * The group's verdict once its pending signals are judged (docs/DESIGN.md, "Declared signals"): {@code verdict}
     * when it is not runnable (what the state says weighs more), or when each sampled payload binds to the type the
     * definition the rows run on declares for its name; else {@link Kind#SIGNAL_DOES_NOT_BIND}, naming the signals, the
     * type and why. Signals of a name the definition does not declare, or declares without a payload, are not judged:
     * nothing reads their payload as a type.
     *
     * @param payloads the sampled pending payloads by signal name, as stored ({@code null} for none)
     */
    public Verdict withPendingSignals(String machine, int version, Verdict verdict,
            Map<String, List<@Nullable String>> payloads) {
        if (!verdict.isRunnable() || payloads.isEmpty()) {
            return verdict;
        }
        int runsAs = verdict.runsAsVersion() == null ? version : verdict.runsAsVersion();
        MachineDefinition definition = machines.find(machine, runsAs).orElse(null);
        if (definition == null || !definition.declaresSignals()) {
            return verdict;
        }
        List<String> reasons = new ArrayList<>();
        Set<String> dropped = new LinkedHashSet<>();
        new TreeMap<>(payloads).forEach((name, stored) -> {
            Type type = definition.signalType(name);
            if (type == null || type == MachineDefinition.NO_PAYLOAD) {
                return;
            }
            int failing = 0;
            String first = null;
            for (String payload : stored) {
                String problem = bindingProblem(payload, type, dropped);
                if (problem != null) {
                    failing++;
                    first = first == null ? problem : first;
                }
            }
            if (failing > 0) {
                reasons.add(failing + " of " + stored.size() + " sampled pending '" + name + "' signals would not bind"
                        + " to " + type.getTypeName() + ", the payload type " + definition.describe() + " declares: "
                        + first);
            }
        });
        if (reasons.isEmpty()) {
            return verdict;
        }
        return new Verdict(Kind.SIGNAL_DOES_NOT_BIND, shorten(String.join("; ", reasons)), new ArrayList<>(dropped),
                verdict.runsAsVersion(), verdict.runsAsStep());
    }

    /** Why a stored payload does not bind to {@code type}, adding the paths it drops to {@code dropped}; null: binds. */
    private @Nullable String bindingProblem(@Nullable String payload, Type type, Set<String> dropped) {
        if (payload == null || payload.equals("null")) {
            return "one carries no payload";
        }
        try {
            JsonCodec.Binding binding = codec.bind(payload, type);
            if (binding.lossy()) {
                dropped.addAll(binding.droppedPaths());
                return "reading one would drop " + binding.droppedPaths();
            }
            return null;
        } catch (JsonCodecException e) {
            return e.getMessage();
        }
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
            case SIGNAL_DOES_NOT_BIND -> 1; // judged after the states, on a runnable group only
            case STEP_MISSING -> 2;
            case BINDS_LOSSILY -> 3;
            case DOES_NOT_BIND -> 4;
            case UPCAST_FAILED -> 5;
            case VERSION_NOT_REGISTERED -> 6;
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
