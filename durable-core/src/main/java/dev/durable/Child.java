package dev.durable;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A child instance that a step starts as part of its outcome ({@link Outcome#startingChildren(java.util.Collection)}):
 * any registered machine, with its initial state and start options. Children exist if and only if the outcome that
 * starts them commits: a step that crashes, or whose outcome is fenced off, starts none, and a step that runs again
 * does not start them twice. The parent can wait for them with {@link Outcome#awaitChildren(Object)} and reads them
 * with {@link StepContext#children()}.
 *
 * <p>A child is checked when the step returns, like the rest of the outcome: a machine this node does not register,
 * a state of the wrong type or one that cannot be stored is an invalid outcome and takes the step's error path, and
 * no child is written. A child whose {@linkplain StartOptions#uniqueKey(String) unique key} another instance holds
 * is not started (it is not this parent's child).
 *
 * <p>By default a child is cancelled with its parent ({@link DurableClient#cancel(long, String)} cascades to the
 * parent's unfinished children, and theirs); {@link #cancelledWithParent(boolean) cancelledWithParent(false)} lets
 * it run on.
 */
public final class Child {

    private final @Nullable String machineName;
    private final @Nullable Class<?> machineType;
    private final @Nullable Object state;
    private final StartOptions options;
    private final boolean cancelledWithParent;

    private Child(@Nullable String machineName, @Nullable Class<?> machineType, @Nullable Object state,
            StartOptions options, boolean cancelledWithParent) {
        this.machineName = machineName;
        this.machineType = machineType;
        this.state = state;
        this.options = Objects.requireNonNull(options, "a child's start options must not be null");
        this.cancelledWithParent = cancelledWithParent;
    }

    /** A child of the machine named {@code machine} (its highest registered version unless the options name one). */
    public static Child of(String machine, @Nullable Object state) {
        if (machine == null || machine.isBlank()) {
            throw new IllegalArgumentException("a child's machine name must not be null or blank");
        }
        return new Child(machine, null, state, StartOptions.defaults(), true);
    }

    /** A child of the machine registered for {@code machine} (a class, as {@link DurableClient#start} takes it). */
    public static Child of(Class<?> machine, @Nullable Object state) {
        Objects.requireNonNull(machine, "a child's machine class must not be null");
        return new Child(null, machine, state, StartOptions.defaults(), true);
    }

    /** This child with {@code options}: version, priority, delay, partition key, unique key. */
    public Child options(StartOptions options) {
        return new Child(machineName, machineType, state, options, cancelledWithParent);
    }

    /**
     * Whether cancelling the parent cancels this child too, while it is unfinished (the default), or lets it run on.
     */
    public Child cancelledWithParent(boolean cancelledWithParent) {
        return new Child(machineName, machineType, state, options, cancelledWithParent);
    }

    /** The machine's name, when the child names it by name. */
    public @Nullable String machineName() {
        return machineName;
    }

    /** The machine's class, when the child names it by class. */
    public @Nullable Class<?> machineType() {
        return machineType;
    }

    public @Nullable Object state() {
        return state;
    }

    public StartOptions options() {
        return options;
    }

    public boolean cancelledWithParent() {
        return cancelledWithParent;
    }

    @Override
    public String toString() {
        return "Child[" + (machineName != null ? machineName : Objects.requireNonNull(machineType).getName())
                + ", " + options + (cancelledWithParent ? "" : ", not cancelled with its parent") + "]";
    }
}
