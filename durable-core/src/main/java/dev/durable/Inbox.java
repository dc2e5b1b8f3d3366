package dev.durable;

import java.util.List;
import java.util.Optional;

/**
 * The signals of one instance, as snapshotted when its step was picked, ordered by arrival.
 *
 * <p>{@link #awaited()} holds the signals whose name the instance was parked on when it woke; after a committed
 * {@link Outcome#next next}, exactly those are deleted. {@link #all()} is the whole inbox, awaited or not; signals
 * that arrive while the step runs are not in it and survive the step.
 */
public record Inbox(List<Signal> awaited, List<Signal> all) {

    public static final Inbox EMPTY = new Inbox(List.of(), List.of());

    public Inbox {
        awaited = List.copyOf(awaited);
        all = List.copyOf(all);
    }

    /** The first awaited signal named {@code name}. */
    public Optional<Signal> awaited(String name) {
        return awaited.stream().filter(signal -> signal.name().equals(name)).findFirst();
    }

    /** The first signal of the whole inbox named {@code name}. */
    public Optional<Signal> first(String name) {
        return all.stream().filter(signal -> signal.name().equals(name)).findFirst();
    }

    public boolean isEmpty() {
        return all.isEmpty();
    }
}
