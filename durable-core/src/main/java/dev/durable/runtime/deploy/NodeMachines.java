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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the machines a node registers ask of the node, checked when an engine is built, before it runs anything: each
 * machine's queue is configured, and its state type and declared signal payload types are ones the codec can read. And which machine versions the pick of
 * each queue takes, upcast versions included (docs/DESIGN.md, "Upcasting").
 */
public final class NodeMachines {

    private static final Logger log = LoggerFactory.getLogger(NodeMachines.class);

    private NodeMachines() {
    }

    /**
     * Fails the engine's build when a declared payload type cannot be read by the codec, naming the machine, where it
     * was defined, the signal and why, as a state type that cannot be read does: otherwise every signal of it would
     * be refused.
     */
    public static void checkPayloadsReadable(MachineRegistry machines, JsonCodec codec) {
        for (MachineDefinition machine : machines.all()) {
            machine.signals().forEach((name, type) -> {
                if (type == MachineDefinition.NO_PAYLOAD) {
                    return;
                }
                try {
                    codec.checkReadable(type);
                } catch (JsonCodecException e) {
                    throw new MachineDefinitionException("Machine " + machine.describe() + " (" + machine.source()
                            + ") declares signal '" + name + "' with payloads of type " + type.getTypeName()
                            + ", which its JSON codec cannot read: " + e.getMessage());
                }
            });
        }
    }

    /**
     * Says, once at a node's first start, which of its machines accept any signal (they declare none): their signals
     * are not checked, and an operator or author reading the log learns that they could be.
     */
    public static void logMachinesAcceptingAny(MachineRegistry machines) {
        List<String> open = machines.all().stream().filter(machine -> !machine.declaresSignals())
                .map(MachineDefinition::describe).toList();
        if (!open.isEmpty()) {
            log.info("Machines {} declare no signals, so they accept any signal name and payload: declare them"
                    + " (MachineDefinition.Builder.signal, @DurableSignal) to have a misspelt name or a payload of the"
                    + " wrong type refused at the call (see \"Declared signals\" in durable's docs/DESIGN.md)",
                    String.join(", ", open));
        }
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
