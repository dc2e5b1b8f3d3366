package dev.durable.runtime.step;

import dev.durable.DurableInstance;
import dev.durable.Inbox;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.StepFailureException;
import java.lang.invoke.MethodType;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StepContext} of one claimed step. It remembers how many ended children the step has seen, at pick and in
 * its reads of {@link #children()}, so that a join on any child waits for one the step has not seen
 * (docs/DESIGN.md, "Children").
 */
public final class DefaultStepContext implements StepContext {

    /** Reads a parent's children, in id order, as they stand now. */
    @FunctionalInterface
    public interface ChildrenReader {
        List<DurableInstance> children(long parentId);
    }

    private final ClaimedStep claimed;
    private final Inbox inbox;
    private final ChildrenReader reader;
    /** The definition the step runs on, whose declared signals type its payloads; null: none declared. */
    private final @Nullable MachineDefinition machine;
    private volatile int childrenSeen;

    public DefaultStepContext(ClaimedStep claimed, Inbox inbox, ChildrenReader reader) {
        this(claimed, inbox, reader, null);
    }

    public DefaultStepContext(ClaimedStep claimed, Inbox inbox, ChildrenReader reader,
            @Nullable MachineDefinition machine) {
        this.claimed = claimed;
        this.inbox = inbox;
        this.reader = reader;
        this.machine = machine;
        this.childrenSeen = claimed.children().ended();
    }

    ClaimedStep claimed() {
        return claimed;
    }

    /** The most ended children the step has seen: at pick, or in a read of {@link #children()}. */
    int childrenSeen() {
        return childrenSeen;
    }

    @Override
    public long instanceId() {
        return claimed.id();
    }

    @Override
    public String machine() {
        return claimed.machine();
    }

    @Override
    public int version() {
        return claimed.version();
    }

    @Override
    public String step() {
        return claimed.step();
    }

    @Override
    public int attempt() {
        return claimed.attempt();
    }

    @Override
    public @Nullable String partitionKey() {
        return claimed.partitionKey();
    }

    @Override
    public long leaseToken() {
        return claimed.leaseToken();
    }

    @Override
    public Inbox inbox() {
        return inbox;
    }

    /**
     * The deadline passed before what the instance was parked on came: no awaited signal is in the inbox, and a join
     * on the children, if any, was not reached at pick.
     */
    @Override
    public boolean timedOut() {
        return claimed.deadlinePassed() && inbox.awaited().isEmpty() && !claimed.children().joined();
    }

    @Override
    public @Nullable Long parentId() {
        return claimed.children().parentId();
    }

    @Override
    public int childrenStarted() {
        return claimed.children().started();
    }

    @Override
    public int childrenEnded() {
        return claimed.children().ended();
    }

    @Override
    public List<DurableInstance> children() {
        if (claimed.children().started() == 0) {
            return List.of();
        }
        List<DurableInstance> children = reader.children(claimed.id());
        int ended = (int) children.stream().filter(child -> child.status().isTerminal()).count();
        synchronized (this) {
            childrenSeen = Math.max(childrenSeen, ended);
        }
        return children;
    }

    /**
     * The payload read as the type the machine declares for {@code name} (docs/DESIGN.md, "Declared signals"), checked
     * against the declaration first, whether or not the signal came: a step that reads a signal its machine cannot
     * receive, or as a type it does not declare, is wrong at its first run, not only once a signal arrives.
     */
    @Override
    public <T> Optional<T> awaited(String name, Class<T> type) {
        if (machine == null || !machine.declaresSignals()) {
            return StepContext.super.awaited(name, type);
        }
        Type declared = machine.signalType(name);
        String where = "Step '" + claimed.step() + "' of " + machine.describe() + " (instance " + claimed.id() + ")";
        if (declared == null) {
            throw new StepFailureException.UndeclaredSignal(where + " reads signal '" + name + "', which " + machine.describe()
                    + " does not declare (it accepts " + (machine.signals().isEmpty() ? "none"
                            : String.join(", ", machine.signals().keySet())) + ")");
        }
        if (declared == MachineDefinition.NO_PAYLOAD) {
            throw new StepFailureException.UndeclaredSignal(where + " reads the payload of signal '" + name + "', which "
                    + machine.describe() + " declares without one; find the signal with awaited(name)");
        }
        if (!boxed(type).isAssignableFrom(rawClass(declared))) {
            throw new StepFailureException.UndeclaredSignal(where + " reads signal '" + name + "' as " + type.getName() + ", but "
                    + machine.describe() + " declares its payload as " + declared.getTypeName());
        }
        return awaited(name).map(signal -> {
            Object payload = signal.payload(declared);
            if (payload == null) {
                throw new IllegalStateException("Signal '" + name + "' (id " + signal.id() + ") of instance "
                        + claimed.id() + " carries no payload to read as " + declared.getTypeName()
                        + " (it was sent before " + machine.describe() + " declared its signals)");
            }
            @SuppressWarnings("unchecked") // T is type, or its box for a primitive, which holds the payload
            T typed = (T) boxed(type).cast(payload);
            return typed;
        });
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return rawClass(p.getRawType());
        }
        return type instanceof GenericArrayType ? Object[].class : Object.class;
    }

    private static Class<?> boxed(Class<?> type) {
        return type.isPrimitive() ? MethodType.methodType(type).wrap().returnType() : type;
    }

    @Override
    public String toString() {
        return "StepContext[instance=" + claimed.id() + ", " + claimed.machine() + " v" + claimed.version()
                + ", step=" + claimed.step() + ", attempt=" + claimed.attempt() + ", leaseToken="
                + claimed.leaseToken() + "]";
    }
}
