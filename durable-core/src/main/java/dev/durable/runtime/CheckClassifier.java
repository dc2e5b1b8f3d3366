package dev.durable.runtime;

import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineRegistry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The deploy check's classifier (docs/DESIGN.md, "The deploy check"): the verdict of {@link DeployClassifier}, which
 * asks {@link StatePreparation} what a node would do with a picked row (upcast it, run it under a step's new name,
 * suspend it for a lossy read or a failed upcast), so a check never disagrees with a run. Where no upcast is involved
 * and the rows cannot run for a missing version, step or a state that does not read, the verdict and its reason are
 * {@link RegistryClassifier}'s, worded for an operator.
 */
final class CheckClassifier implements GroupClassifier {

    private final MachineRegistry machines;
    private final RegistryClassifier registry;
    private final DeployClassifier preparation;

    CheckClassifier(MachineRegistry machines, JsonCodec codec) {
        this.machines = machines;
        this.registry = new RegistryClassifier(machines, codec);
        this.preparation = new DeployClassifier(machines, codec);
    }

    @Override
    public DeployCheck.Verdict classify(String machine, int version, String step,
            List<@Nullable String> sampleStatesJson) {
        DeployClassifier.Classification classification = preparation.classify(machine, version, step,
                sampleStatesJson);
        Integer runsOn = classification.runsOnVersion();
        Integer upcastTo = runsOn != null && runsOn != version ? runsOn : null;
        String runsAs = classification.runsAsStep();
        String renamedTo = runsAs != null && !runsAs.equals(step) ? runsAs : null;
        String detail = classification.detail() == null ? "" : classification.detail();
        return switch (classification.verdict()) {
            case RUNNABLE -> new DeployCheck.Verdict(DeployCheck.Verdict.Kind.RUNNABLE, detail, List.of(), upcastTo,
                    renamedTo);
            case BINDS_LOSSILY -> new DeployCheck.Verdict(DeployCheck.Verdict.Kind.BINDS_LOSSILY,
                    lossy(machine, runsOn, upcastTo, classification.droppedPaths()), classification.droppedPaths(),
                    upcastTo, renamedTo);
            case UPCAST_FAILED -> new DeployCheck.Verdict(DeployCheck.Verdict.Kind.UPCAST_FAILED, detail, List.of(),
                    upcastTo, renamedTo);
            case STEP_MISSING, DOES_NOT_BIND, VERSION_NOT_REGISTERED -> {
                DeployCheck.Verdict plain = upcastTo == null ? registry.classify(machine, version, step,
                        sampleStatesJson) : null;
                yield plain != null && !plain.isRunnable() ? plain : new DeployCheck.Verdict(
                        DeployCheck.Verdict.Kind.valueOf(classification.verdict().name()), detail, List.of(),
                        upcastTo, renamedTo);
            }
        };
    }

    /**
     * Why a group binds lossily, for a check: what reading drops (the runtime's reason, for a suspension, says what
     * it did with a row instead).
     */
    private String lossy(String machine, @Nullable Integer runsOn, @Nullable Integer upcastTo, List<String> dropped) {
        String type = runsOn == null ? "the state type" : machines.find(machine, runsOn)
                .map(definition -> definition.stateType().getTypeName()).orElse("the state type");
        return "reading the stored state" + (upcastTo == null ? "" : ", upcast to v" + upcastTo + ",") + " as " + type
                + " would drop " + dropped + ", which it has no place for";
    }
}
