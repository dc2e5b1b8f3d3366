package dev.durable.runtime.control;

import dev.durable.SignalResult;
import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the machines of this node accept as signals, for the client's delivery (docs/DESIGN.md, "Declared signals"):
 * given a signal's name and payload, the (machine, version) pairs that refuse it, which the delivery statement is told
 * so that it refuses them in the same statement that locks the instance, and, for the pair it found, why.
 *
 * <p>An instance is checked against the declarations of the definition its next step runs on: its own version's when
 * this node registers it, else the highest version's when that one upcasts it (docs/DESIGN.md, "Upcasting"). A pair
 * this node does not run at all is not checked: its signals are delivered as they were before declarations existed.
 */
public final class SignalDeclarations {

    /** A pair whose definition declares its signals, and the definition whose declarations apply. */
    private record Declaring(String machine, int version, MachineDefinition definition) {
    }

    private final List<Declaring> declaring;
    private final JsonCodec codec;

    public SignalDeclarations(MachineRegistry machines, JsonCodec codec) {
        this.codec = codec;
        List<Declaring> pairs = new ArrayList<>();
        for (String name : machines.all().stream().map(MachineDefinition::name).distinct().toList()) {
            for (int version : machines.runnableVersions(name)) {
                MachineDefinition definition = machines.find(name, version)
                        .or(() -> machines.upcastTarget(name, version)).orElseThrow();
                if (definition.declaresSignals()) {
                    pairs.add(new Declaring(name, version, definition));
                }
            }
        }
        this.declaring = List.copyOf(pairs);
    }

    /** Whether any machine of this node declares its signals: without one, every check refuses nothing. */
    public boolean any() {
        return !declaring.isEmpty();
    }

    /**
     * Which pairs refuse signal {@code name} with this payload.
     *
     * @param payloadJson the payload as the codec wrote it; {@code null} for none
     */
    public Check check(String name, @Nullable String payloadJson) {
        if (declaring.isEmpty()) {
            return Check.NONE;
        }
        List<String> machines = new ArrayList<>();
        List<Integer> versions = new ArrayList<>();
        Map<Type, String> bindings = new HashMap<>(2); // per declared type: why the payload does not bind, or ""
        Map<String, Refusal> refusals = new LinkedHashMap<>();
        for (Declaring pair : declaring) {
            Type declared = pair.definition().signalType(name);
            String problem;
            if (declared == null) {
                problem = null; // the name is not declared
            } else {
                problem = bindings.computeIfAbsent(declared, type -> bindingProblem(payloadJson, type));
                if (problem.isEmpty()) {
                    continue;
                }
            }
            machines.add(pair.machine());
            versions.add(pair.version());
            refusals.put(key(pair.machine(), pair.version()), new Refusal(pair.definition(), declared, problem));
        }
        return new Check(name, machines.toArray(String[]::new), versions.toArray(Integer[]::new), refusals);
    }

    /** Why {@code payloadJson} does not bind to {@code type}: empty when it does. */
    private String bindingProblem(@Nullable String payloadJson, Type type) {
        if (type == MachineDefinition.NO_PAYLOAD) {
            return payloadJson == null ? "" : "this one carries one, which no step would read";
        }
        if (payloadJson == null) {
            return "this one carries none";
        }
        try {
            JsonCodec.Binding binding = codec.bind(payloadJson, type);
            if (binding.lossy()) {
                return "reading this one as it would drop " + binding.droppedPaths() + ", which it has no place for";
            }
            if (binding.value() == null) {
                return "this one is JSON null";
            }
            return "";
        } catch (JsonCodecException e) {
            return "reading this one as it fails: " + firstLine(e.getMessage());
        }
    }

    private static String key(String machine, int version) {
        return version + ":" + machine;
    }

    private static String firstLine(@Nullable String text) {
        String line = text == null ? "" : text.lines().findFirst().orElse("").strip();
        return line.length() <= 300 ? line : line.substring(0, 299) + "…";
    }

    /** Why one pair refuses: its definition, the declared type ({@code null}: the name is not), the binding problem. */
    private record Refusal(MachineDefinition definition, @Nullable Type declared, @Nullable String problem) {
    }

    /**
     * The pairs that refuse one signal, as the delivery statement takes them (two arrays, element by element), and
     * the refusal of the pair the statement found.
     */
    public static final class Check {

        static final Check NONE = new Check("", new String[0], new Integer[0], Map.of());

        private final String signal;
        private final String[] machines;
        private final Integer[] versions;
        private final Map<String, Refusal> refusals;

        private Check(String signal, String[] machines, Integer[] versions, Map<String, Refusal> refusals) {
            this.signal = signal;
            this.machines = machines;
            this.versions = versions;
            this.refusals = refusals;
        }

        /** The machines of the refusing pairs. */
        public String[] machines() {
            return machines;
        }

        /** The versions of the refusing pairs, element by element with {@link #machines()}. */
        public Integer[] versions() {
            return versions;
        }

        /**
         * The result of a signal the statement refused for instance {@code instanceId} of {@code machine} at
         * {@code version}, one of the refusing pairs.
         */
        public SignalResult refused(long instanceId, String machine, int version) {
            Refusal refusal = refusals.get(key(machine, version));
            if (refusal == null) {
                throw new IllegalStateException("The delivery refused signal '" + signal + "' to instance "
                        + instanceId + " of " + machine + " v" + version + ", which this check did not refuse");
            }
            MachineDefinition definition = refusal.definition();
            Map<String, String> declared = new LinkedHashMap<>();
            definition.signals().forEach((name, type) -> declared.put(name, type.getTypeName()));
            String which = "machine " + machine + " v" + version + (definition.version() == version ? ""
                    : " (run as v" + definition.version() + " after an upcast, whose declarations apply)");
            String start = "Signal '" + signal + "' to instance " + instanceId + " refused: " + which;
            String reason;
            SignalResult.Delivery delivery;
            if (refusal.declared() == null) {
                delivery = SignalResult.Delivery.REFUSED_UNDECLARED_SIGNAL;
                reason = start + (declared.isEmpty() ? " accepts no signals" : " does not declare it; it accepts "
                        + describe(definition)) + ". Nothing was stored.";
            } else {
                delivery = SignalResult.Delivery.REFUSED_WRONG_PAYLOAD;
                reason = start + (refusal.declared() == MachineDefinition.NO_PAYLOAD
                        ? " declares it without a payload, and " : " declares its payload as "
                                + refusal.declared().getTypeName() + ", and ") + refusal.problem()
                        + ". Nothing was stored.";
            }
            return new SignalResult(instanceId, delivery, false, new SignalResult.Mismatch(signal, machine, version,
                    definition.version(), declared, refusal.declared() == null ? null
                            : refusal.declared().getTypeName(), reason));
        }

        private static String describe(MachineDefinition definition) {
            List<String> signals = new ArrayList<>();
            definition.signals().forEach((name, type) -> signals.add(name + " (" + (type
                    == MachineDefinition.NO_PAYLOAD ? "no payload" : type.getTypeName()) + ")"));
            return String.join(", ", signals);
        }
    }
}
