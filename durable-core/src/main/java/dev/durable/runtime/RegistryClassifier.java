package dev.durable.runtime;

import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The first {@link GroupClassifier}: asks the registry whether the version is registered and declares the step, and
 * the codec whether each sampled state reads as the version's state type, as a node running a picked row would
 * ({@code StepRunner}). It knows nothing of lossy reads or upcasts: a state that reads is runnable.
 */
final class RegistryClassifier implements GroupClassifier {

    /** A binding error is cut to this many characters in a verdict: it goes into a log line. */
    static final int MAX_REASON = 300;

    private final MachineRegistry machines;
    private final JsonCodec codec;

    RegistryClassifier(MachineRegistry machines, JsonCodec codec) {
        this.machines = machines;
        this.codec = codec;
    }

    @Override
    public DeployCheck.Verdict classify(String machine, int version, String step,
            List<@Nullable String> sampleStatesJson) {
        MachineDefinition definition = machines.find(machine, version).orElse(null);
        if (definition == null) {
            NavigableSet<Integer> registered = new TreeSet<>();
            machines.all().stream().filter(m -> m.name().equals(machine)).forEach(m -> registered.add(m.version()));
            return DeployCheck.Verdict.of(DeployCheck.Verdict.Kind.VERSION_NOT_REGISTERED, registered.isEmpty()
                    ? "no version of machine " + machine + " is registered"
                    : "this code registers " + machine + " " + registered.stream().map(v -> "v" + v).toList()
                            + ", not v" + version);
        }
        if (definition.step(step) == null) {
            return DeployCheck.Verdict.of(DeployCheck.Verdict.Kind.STEP_MISSING, definition.describe()
                    + " declares the steps " + definition.steps().keySet() + ", not '" + step + "'");
        }
        int unreadable = 0;
        int read = 0;
        String firstError = null;
        for (String state : sampleStatesJson) {
            if (state == null) {
                continue; // a state stored as SQL NULL is handed to the step as null, never read
            }
            read++;
            try {
                codec.read(state, definition.stateType());
            } catch (JsonCodecException e) {
                unreadable++;
                if (firstError == null) {
                    firstError = shorten(String.valueOf(e.getMessage()));
                }
            }
        }
        if (unreadable > 0) {
            return DeployCheck.Verdict.of(DeployCheck.Verdict.Kind.DOES_NOT_BIND, unreadable + " of " + read
                    + " sampled states do not read as " + definition.stateType().getTypeName() + ": " + firstError);
        }
        return DeployCheck.Verdict.runnable();
    }

    /** The first line of a binding error, at most {@link #MAX_REASON} characters. */
    static String shorten(String error) {
        String line = error.lines().findFirst().orElse("").strip();
        return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON - 1) + "…";
    }
}
