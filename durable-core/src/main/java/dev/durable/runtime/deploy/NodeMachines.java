package dev.durable.runtime.deploy;

import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.InvalidSettingException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the machines a node registers ask of the node, checked when an engine is built, before it runs anything: each
 * machine's queue is configured, and its state type is one the codec can read. And which machine versions the pick of
 * each queue takes, upcast versions included (docs/DESIGN.md, "Upcasting").
 */
public final class NodeMachines {

    private NodeMachines() {
    }

    /**
     * Fails the start when a machine's state type cannot be read by the codec (the application's JSON mapper in
     * Spring), naming the machine, where it was defined and why: otherwise every instance would fail at its first
     * step with an unreadable state.
     */
    public static void checkStatesReadable(MachineRegistry machines, JsonCodec codec) {
        for (MachineDefinition machine : machines.all()) {
            try {
                codec.checkReadable(machine.stateType());
            } catch (JsonCodecException e) {
                throw new MachineDefinitionException("Machine " + machine.describe() + " (" + machine.source()
                        + ") stores states of type " + machine.stateType().getTypeName()
                        + ", which its JSON codec cannot read: " + e.getMessage());
            }
        }
    }

    public static void checkQueuesConfigured(EngineSettings settings, MachineRegistry machines) {
        machines.all().stream()
                .sorted(Comparator.comparing(MachineDefinition::queue))
                .filter(machine -> settings.queue(machine.queue()) == null)
                .findFirst()
                .ifPresent(machine -> {
                    throw new InvalidSettingException("queues." + machine.queue(), "machine " + machine.describe()
                            + " (" + machine.source() + ") runs on queue '" + machine.queue()
                            + "', which is not configured; configured queues: " + settings.queues().keySet());
                });
    }

    /**
     * The machine versions the pick of {@code queue} takes: those registered on it, and for a machine whose highest
     * version is on it, the older versions that version upcasts (docs/DESIGN.md, "Upcasting").
     */
    public static Map<String, List<Integer>> versionsOnQueue(MachineRegistry machines, String queue) {
        Map<String, List<Integer>> versions = new TreeMap<>();
        for (MachineDefinition machine : machines.onQueue(queue)) {
            versions.computeIfAbsent(machine.name(), name -> new ArrayList<>()).add(machine.version());
            MachineDefinition highest = machines.resolve(machine.name(), null);
            if (machine == highest) {
                for (int version : machines.runnableVersions(machine.name())) {
                    if (machines.find(machine.name(), version).isEmpty()) {
                        versions.get(machine.name()).add(version);
                    }
                }
            }
        }
        return versions;
    }
}
