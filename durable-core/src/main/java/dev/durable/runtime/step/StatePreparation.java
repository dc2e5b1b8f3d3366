package dev.durable.runtime.step;

import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.StateUpcaster;
import dev.durable.machine.StepDefinition;
import dev.durable.runtime.support.NulCharacters;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What this node makes of a stored row before its step runs: the definition that runs it (the row's own version, or
 * the current one after an upcast), the step (its current name, if the stored one is a former name) and the state,
 * read through {@link JsonCodec#bind} so that a read that would drop stored properties is refused (docs/DESIGN.md,
 * "Lossy states" and "Upcasting"). The one owner of that decision: the {@link StepRunner} prepares every picked row
 * here, and the {@code DeployClassifier} asks the same of sample states, so a check never disagrees with a run.
 *
 * <p>Touches no database and changes nothing: an upcast works on a tree parsed from the stored text, and what it
 * produced reaches the row only with the outcome of the step that ran on it ({@link Upgrade}).
 */
public final class StatePreparation {

    /**
     * Parses stored states into trees for the upcasters and writes them back: numbers as stored, digit for digit (a
     * float read as a double would lose digits and trailing zeros, which {@code jsonb} keeps).
     */
    private static final JsonMapper TREES = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    /** How every reason for a failed upcast ends. */
    private static final String KEPT = "; the step was not run, and the row's state, version and step are kept as"
            + " stored";

    /** A prepared row: ready to run, refused, or of a version this node cannot run. */
    public sealed interface Prepared permits Ready, Refused, Unregistered {
    }

    /**
     * A row whose step can run, or take the error path as any row whose step is unknown or whose state is unreadable.
     *
     * @param definition     the definition the step runs on: the row's own version, or the one it was upcast to
     * @param step           the step's current name (the stored name, unless that is a former name)
     * @param stepDefinition the step; {@code null} when the definition declares no step of that name or former name
     * @param state          the state read; {@code null} when the stored one is SQL {@code NULL} or unreadable
     * @param unreadable     why the stored state cannot be read as the definition's state type (never after an
     *                       upcast: an upcast state that cannot be read is a failed upcast)
     * @param upgrade        what the step's commit writes besides its outcome; {@code null} when the row is current
     */
    public record Ready(MachineDefinition definition, String step, @Nullable StepDefinition stepDefinition,
            @Nullable Object state, @Nullable JsonCodecException unreadable, @Nullable Upgrade upgrade)
            implements Prepared {
    }

    /** Why a row is not run at all: its state would lose stored properties, or its upcast failed. */
    public enum Refusal {
        LOSSY, UPCAST_FAILED
    }

    /**
     * A row whose step must not run: nothing of it is to be written but its suspension (or failure).
     *
     * @param definition   the definition it would have run on
     * @param refusal      why
     * @param reason       what is wrong, naming the machine, the versions and the paths or the error, for
     *                     {@code last_error}
     * @param droppedPaths {@code LOSSY}: the stored properties the read would drop
     * @param cause        {@code UPCAST_FAILED}: what the upcaster threw, or why its result could not be read
     */
    public record Refused(MachineDefinition definition, Refusal refusal, String reason, List<String> droppedPaths,
            @Nullable Exception cause) implements Prepared {

        public Refused {
            droppedPaths = List.copyOf(droppedPaths);
        }
    }

    /** A row of a machine version this node neither registers nor upcasts. */
    public record Unregistered(String machine, int version) implements Prepared {
    }

    private final MachineRegistry machines;
    private final JsonCodec codec;

    public StatePreparation(MachineRegistry machines, JsonCodec codec) {
        this.machines = machines;
        this.codec = codec;
    }

    /** The definition a row of {@code machine} at {@code version} runs on, upcast or not; {@code null} for none. */
    @Nullable MachineDefinition definitionFor(String machine, int version) {
        return machines.find(machine, version).or(() -> machines.upcastTarget(machine, version)).orElse(null);
    }

    /** Prepares the row of {@code machine} at {@code version} and {@code step}, holding {@code stateJson}. */
    public Prepared prepare(String machine, int version, String step, @Nullable String stateJson) {
        MachineDefinition definition = machines.find(machine, version).orElse(null);
        String json = stateJson;
        boolean upcast = false;
        if (definition == null) {
            definition = machines.upcastTarget(machine, version).orElse(null);
            if (definition == null) {
                return new Unregistered(machine, version);
            }
            upcast = true;
            if (stateJson != null) {
                try {
                    json = upcast(definition, version, stateJson);
                } catch (UpcastFailure failure) {
                    return new Refused(definition, Refusal.UPCAST_FAILED, failure.getMessage(), List.of(),
                            (Exception) failure.getCause());
                }
            }
        }
        String current = definition.currentStepName(step);
        String runs = current != null ? current : step;
        StepDefinition stepDefinition = current == null ? null : definition.step(current);
        Object state = null;
        JsonCodecException unreadable = null;
        if (json != null) {
            try {
                JsonCodec.Binding binding = codec.bind(json, definition.stateType());
                if (binding.lossy()) {
                    return new Refused(definition, Refusal.LOSSY, lossy(definition, machine, version,
                            binding.droppedPaths()), binding.droppedPaths(), null);
                }
                state = binding.value();
            } catch (JsonCodecException e) {
                if (upcast) {
                    return new Refused(definition, Refusal.UPCAST_FAILED, upcastFailed(definition, version)
                            + ": the upcast state cannot be read as " + definition.stateType().getTypeName() + ": "
                            + e.getMessage() + KEPT, List.of(), e);
                }
                unreadable = e;
            }
        }
        Upgrade upgrade = upcast || !runs.equals(step)
                ? new Upgrade(definition.version(), runs, upcast ? json : null) : null;
        return new Ready(definition, runs, stepDefinition, state, unreadable, upgrade);
    }

    /** The state of version {@code version} brought to {@code definition}'s version through its upcasters, as JSON. */
    private static String upcast(MachineDefinition definition, int version, String stateJson) throws UpcastFailure {
        JsonNode tree;
        try {
            tree = TREES.readTree(stateJson);
        } catch (JacksonException e) {
            throw new UpcastFailure(upcastFailed(definition, version) + ": the stored state is not JSON: "
                    + e.getOriginalMessage() + KEPT, e);
        }
        for (int from = version; from < definition.version(); from++) {
            StateUpcaster upcaster = definition.upcasters().get(from);
            JsonNode next;
            try {
                next = upcaster.upcast(tree);
            } catch (Exception e) {
                throw new UpcastFailure(upcastFailed(definition, version) + ": the upcaster from version " + from
                        + " threw " + StepRunner.describe(e) + KEPT, e);
            }
            if (next == null) {
                throw new UpcastFailure(upcastFailed(definition, version) + ": the upcaster from version " + from
                        + " returned null" + KEPT, null);
            }
            tree = next;
        }
        String json;
        try {
            json = TREES.writeValueAsString(tree);
        } catch (JacksonException e) {
            throw new UpcastFailure(upcastFailed(definition, version) + ": its result cannot be written as JSON: "
                    + e.getOriginalMessage() + KEPT, e);
        }
        String nul = NulCharacters.find(json);
        if (nul != null) {
            throw new UpcastFailure(upcastFailed(definition, version) + ": its result holds a NUL character"
                    + " (\\u0000) at " + nul + ", which PostgreSQL's jsonb cannot store" + KEPT, null);
        }
        return json;
    }

    private static String upcastFailed(MachineDefinition definition, int version) {
        return "Upcasting the state of " + definition.name() + " v" + version + " to v" + definition.version()
                + " failed";
    }

    private static String lossy(MachineDefinition definition, String machine, int version, List<String> dropped) {
        String them = dropped.size() == 1 ? "it" : "them";
        boolean upcast = version != definition.version();
        return "The stored state of " + machine + " v" + version + (upcast ? ", upcast to v" + definition.version()
                + "," : "") + " would lose " + dropped + " when read as " + definition.stateType().getTypeName()
                + ", which has no place for " + them + "; the step was not run, and the stored state is kept as it is."
                + (upcast ? " Make the upcasters to v" + definition.version() + " carry " + them + " over"
                        : " Raise the machine's version and declare an upcaster from v" + version + " that carries "
                                + them + " over")
                + " (or give the state type a place for " + them + "), then retry the instance";
    }

    /** A failed upcast, with the message the row's suspension or failure records. */
    private static final class UpcastFailure extends Exception {

        UpcastFailure(String message, @Nullable Exception cause) {
            super(message, cause, false, false);
        }
    }
}
