package dev.durable.machine;

import dev.durable.Schedule;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The machines this node knows, by (name, version). Immutable. A node picks only rows of a version it runs: a
 * registered (name, version), or an older version that the highest registered version of the machine upcasts
 * (docs/DESIGN.md, "Upcasting"). So a node running older code never picks (and fails) rows of a newer version.
 */
public final class MachineRegistry {

    private final Map<String, NavigableMap<Integer, MachineDefinition>> byName;
    private final Map<Class<?>, String> namesByClass;
    private final List<MachineDefinition> all;

    private MachineRegistry(Map<String, NavigableMap<Integer, MachineDefinition>> byName,
            Map<Class<?>, String> namesByClass) {
        this.byName = byName;
        this.namesByClass = namesByClass;
        this.all = byName.values().stream().flatMap(versions -> versions.values().stream()).toList();
    }

    /**
     * A registry of these definitions.
     *
     * @throws MachineDefinitionException if two share a (name, version), one class is registered under two names, or
     *                                    a version other than a machine's highest declares upcasters
     */
    public static MachineRegistry of(Collection<MachineDefinition> definitions) {
        Map<String, NavigableMap<Integer, MachineDefinition>> byName = new TreeMap<>();
        Map<Class<?>, String> namesByClass = new LinkedHashMap<>();
        for (MachineDefinition definition : definitions) {
            NavigableMap<Integer, MachineDefinition> versions =
                    byName.computeIfAbsent(definition.name(), name -> new TreeMap<>());
            MachineDefinition earlier = versions.putIfAbsent(definition.version(), definition);
            if (earlier != null) {
                throw new MachineDefinitionException("Machine " + definition.describe() + " is defined twice: by "
                        + earlier.source() + " and by " + definition.source());
            }
            Class<?> type = definition.machineClass();
            if (type != null) {
                String otherName = namesByClass.putIfAbsent(type, definition.name());
                if (otherName != null && !otherName.equals(definition.name())) {
                    throw new MachineDefinitionException("Class " + type.getName() + " is registered as machine '"
                            + otherName + "' and as machine '" + definition.name() + "' (" + definition.source()
                            + "); a class can define one machine name");
                }
            }
        }
        checkScheduleNames(byName);
        checkUpcasters(byName);
        return new MachineRegistry(byName, namesByClass);
    }

    /**
     * Only the highest registered version of a machine brings older rows to itself: upcasters declared by a lower
     * version as well would never run, and which chain applies would not be plain from the code.
     */
    private static void checkUpcasters(Map<String, NavigableMap<Integer, MachineDefinition>> byName) {
        for (NavigableMap<Integer, MachineDefinition> versions : byName.values()) {
            MachineDefinition highest = versions.lastEntry().getValue();
            for (MachineDefinition lower : versions.headMap(highest.version()).values()) {
                if (!lower.upcasters().isEmpty()) {
                    throw new MachineDefinitionException("Machine " + lower.describe() + " (" + lower.source()
                            + ") declares upcasters from versions " + lower.upcasters().keySet() + ", but "
                            + highest.describe() + " (" + highest.source() + ") is registered too, and only the"
                            + " highest registered version of a machine upcasts older rows: declare the whole chain on "
                            + highest.describe());
                }
            }
        }
    }

    /** Two machines declaring a schedule of one name would overwrite each other's row at every start. */
    private static void checkScheduleNames(Map<String, NavigableMap<Integer, MachineDefinition>> byName) {
        Map<String, MachineDefinition> declaredBy = new TreeMap<>();
        for (NavigableMap<Integer, MachineDefinition> versions : byName.values()) {
            MachineDefinition highest = versions.lastEntry().getValue();
            for (Schedule schedule : highest.schedules()) {
                MachineDefinition other = declaredBy.putIfAbsent(schedule.name(), highest);
                if (other != null) {
                    throw new MachineDefinitionException("Schedule '" + schedule.name() + "' is declared by machine "
                            + other.describe() + " (" + other.source() + ") and by machine " + highest.describe()
                            + " (" + highest.source() + "); schedule names are unique");
                }
            }
        }
    }

    public static MachineRegistry of(MachineDefinition... definitions) {
        return of(List.of(definitions));
    }

    public Optional<MachineDefinition> find(String name, int version) {
        NavigableMap<Integer, MachineDefinition> versions = byName.get(name);
        return versions == null ? Optional.empty() : Optional.ofNullable(versions.get(version));
    }

    /**
     * The definition a row of {@code name} at {@code version} runs on after its state is upcast: the machine's highest
     * registered version, when this node does not register {@code version} itself and that highest version declares
     * upcasters from {@code version} on (docs/DESIGN.md, "Upcasting"); empty when the row runs on its own version's
     * definition, or on none.
     */
    public Optional<MachineDefinition> upcastTarget(String name, int version) {
        NavigableMap<Integer, MachineDefinition> versions = byName.get(name);
        if (versions == null || versions.containsKey(version)) {
            return Optional.empty();
        }
        MachineDefinition highest = versions.lastEntry().getValue();
        return version < highest.version() && version >= highest.oldestUpcastVersion() ? Optional.of(highest)
                : Optional.empty();
    }

    /**
     * The versions of {@code name} whose rows this node runs: those it registers, and the older ones the highest
     * registered version upcasts. Empty for a machine this node does not know.
     */
    public SortedSet<Integer> runnableVersions(String name) {
        NavigableMap<Integer, MachineDefinition> versions = byName.get(name);
        if (versions == null) {
            return Collections.emptySortedSet();
        }
        SortedSet<Integer> runnable = new TreeSet<>(versions.keySet());
        MachineDefinition highest = versions.lastEntry().getValue();
        for (int version = highest.oldestUpcastVersion(); version < highest.version(); version++) {
            runnable.add(version);
        }
        return Collections.unmodifiableSortedSet(runnable);
    }

    /**
     * The definition new instances of {@code name} use: {@code version} if given, else the highest registered.
     *
     * @throws IllegalArgumentException naming the registered machines if there is no such machine or version
     */
    public MachineDefinition resolve(String name, @Nullable Integer version) {
        NavigableMap<Integer, MachineDefinition> versions = byName.get(name);
        if (versions == null) {
            throw new IllegalArgumentException("No machine named '" + name + "' is registered; registered machines: "
                    + describeAll());
        }
        if (version == null) {
            return versions.lastEntry().getValue();
        }
        MachineDefinition definition = versions.get(version);
        if (definition == null) {
            throw new IllegalArgumentException("Machine '" + name + "' has no version " + version
                    + "; registered versions: " + versions.keySet());
        }
        return definition;
    }

    /**
     * The definition new instances of the machine registered from {@code type} use (see
     * {@link #resolve(String, Integer)}): the class names the machine, the version is the highest registered unless
     * one is given.
     */
    public MachineDefinition resolve(Class<?> type, @Nullable Integer version) {
        String name = namesByClass.get(type);
        if (name == null) {
            throw new IllegalArgumentException("Class " + type.getName()
                    + " is not a registered machine; registered machines: " + describeAll());
        }
        return resolve(name, version);
    }

    /** Every definition, ordered by name then version. */
    public List<MachineDefinition> all() {
        return all;
    }

    /** The definitions whose instances run on {@code queue}. */
    public List<MachineDefinition> onQueue(String queue) {
        return all.stream().filter(definition -> definition.queue().equals(queue)).toList();
    }

    /** The queues named by the registered machines. */
    public Set<String> queues() {
        return all.stream().map(MachineDefinition::queue).collect(Collectors.toCollection(TreeSet::new));
    }

    private String describeAll() {
        if (all.isEmpty()) {
            return "(none)";
        }
        List<String> names = new ArrayList<>();
        byName.forEach((name, versions) -> {
            MachineDefinition any = versions.firstEntry().getValue();
            String typeName = any.machineClass() == null ? "" : " (" + any.machineClass().getName() + ")";
            names.add(name + " " + versions.keySet() + typeName);
        });
        names.sort(Comparator.naturalOrder());
        return String.join(", ", names);
    }
}
