package dev.durable;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How to start an instance: all optional. Immutable; start from {@link #defaults()}, and every setter returns a
 * copy with one option changed, so a chain keeps every option it sets. The getters share the setters' names.
 *
 * <pre>{@code
 * StartOptions options = StartOptions.defaults().partitionKey("customer:7").uniqueKey("order:42").priority(-1);
 * }</pre>
 *
 * <h2>Uniqueness</h2>
 * With a {@linkplain #uniqueKey(String) unique key}, a start is deduplicated while another instance with the same
 * key sits in one of the statuses of its scope: the start then returns that instance instead of creating one. The
 * scope must contain every active status ({@link InstanceStatus#ACTIVE}), because an instance can move back into
 * an active status at any time (a retry, a reap, a signal) and must never collide with another holder of its key
 * when it does; it may add {@code DONE} and/or {@code FAILED} to also block starts after the instance ended.
 */
public final class StartOptions {

    /**
     * The longest key, in bytes of UTF-8: partition, unique and correlation keys (and a signal's dedup key) are kept
     * in B-tree indexes, whose entries must fit in a third of a page. A longer key is refused at the call, naming it.
     */
    public static final int MAX_KEY_BYTES = 1000;

    private static final StartOptions DEFAULTS =
            new StartOptions(null, null, null, InstanceStatus.ACTIVE, (short) 0, Duration.ZERO, null);

    private final @Nullable String partitionKey;
    private final @Nullable String uniqueKey;
    private final @Nullable String correlationKey;
    private final Set<InstanceStatus> uniqueScope;
    private final short priority;
    private final Duration delay;
    private final @Nullable Integer version;

    private StartOptions(@Nullable String partitionKey, @Nullable String uniqueKey, @Nullable String correlationKey,
            Set<InstanceStatus> uniqueScope, short priority, Duration delay, @Nullable Integer version) {
        this.partitionKey = partitionKey;
        this.uniqueKey = uniqueKey;
        this.correlationKey = correlationKey;
        this.uniqueScope = Set.copyOf(uniqueScope);
        this.priority = priority;
        this.delay = delay;
        this.version = version;
    }

    /**
     * No partition key, no unique key, priority 0, runnable at once, the highest registered version. The one way
     * in: every option is then set by an instance method that returns a copy, so a chain keeps every option.
     */
    public static StartOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Instances sharing a partition key never execute at the same time, on any node; {@code null} for none. At most
     * {@value #MAX_KEY_BYTES} bytes in UTF-8.
     */
    public StartOptions partitionKey(@Nullable String key) {
        return new StartOptions(key, uniqueKey, correlationKey, uniqueScope, priority, delay, version);
    }

    /**
     * Deduplicate starts on this key while an instance holding it is in the unique scope; {@code null} for none. The
     * key also finds the instance again and addresses signals and cancels to it
     * ({@link DurableClient#findByUniqueKey(String)}). At most {@value #MAX_KEY_BYTES} bytes in UTF-8.
     */
    public StartOptions uniqueKey(@Nullable String key) {
        return new StartOptions(partitionKey, key, correlationKey, uniqueScope, priority, delay, version);
    }

    /**
     * A key the instance shares with others, so that they can be found together
     * ({@code list(InstanceQuery.all().correlationKey(key))}): the instances of one business object, a parent and its
     * children. Unlike a unique key it deduplicates nothing; {@code null} for none. Like every key, at most
     * {@value #MAX_KEY_BYTES} bytes in UTF-8 and without NUL characters, checked at the start.
     */
    public StartOptions correlationKey(@Nullable String key) {
        return new StartOptions(partitionKey, uniqueKey, key, uniqueScope, priority, delay, version);
    }

    /**
     * The statuses in which an instance holds its unique key; must contain {@link InstanceStatus#ACTIVE}
     * (see the class comment). Default: the active statuses. A suspended instance holds its key wherever a runnable
     * one does, so naming {@link InstanceStatus#SUSPENDED} too changes nothing.
     */
    public StartOptions uniqueScope(Set<InstanceStatus> scope) {
        Objects.requireNonNull(scope, "unique scope must not be null");
        if (!scope.containsAll(InstanceStatus.ACTIVE)) {
            Set<InstanceStatus> missing = EnumSet.copyOf(InstanceStatus.ACTIVE);
            missing.removeAll(scope);
            throw new IllegalArgumentException("Unique scope " + scope + " lacks " + missing
                    + ": a scope must contain every active status " + InstanceStatus.ACTIVE
                    + ", because an instance can re-enter any of them and would then collide with another holder"
                    + " of its key; add done and/or failed to keep the key after the instance ends");
        }
        return new StartOptions(partitionKey, uniqueKey, correlationKey, scope, priority, delay, version);
    }

    /** Lower values are picked first; default 0; must fit in a {@code smallint}. */
    public StartOptions priority(int priority) {
        if (priority < Short.MIN_VALUE || priority > Short.MAX_VALUE) {
            throw new IllegalArgumentException("priority must fit in a smallint (" + Short.MIN_VALUE + ".."
                    + Short.MAX_VALUE + "), was " + priority);
        }
        return new StartOptions(partitionKey, uniqueKey, correlationKey, uniqueScope, (short) priority, delay,
                version);
    }

    /** Make the instance runnable only after {@code delay} (measured on the database clock). */
    public StartOptions delay(Duration delay) {
        Objects.requireNonNull(delay, "delay must not be null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        return new StartOptions(partitionKey, uniqueKey, correlationKey, uniqueScope, priority, delay, version);
    }

    /** Start on this machine version instead of the highest registered one. */
    public StartOptions version(int version) {
        return new StartOptions(partitionKey, uniqueKey, correlationKey, uniqueScope, priority, delay, version);
    }

    public @Nullable String partitionKey() {
        return partitionKey;
    }

    public @Nullable String uniqueKey() {
        return uniqueKey;
    }

    public @Nullable String correlationKey() {
        return correlationKey;
    }

    public Set<InstanceStatus> uniqueScope() {
        return uniqueScope;
    }

    public short priority() {
        return priority;
    }

    public Duration delay() {
        return delay;
    }

    public @Nullable Integer version() {
        return version;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StartOptions that
                && Objects.equals(partitionKey, that.partitionKey)
                && Objects.equals(uniqueKey, that.uniqueKey)
                && Objects.equals(correlationKey, that.correlationKey)
                && uniqueScope.equals(that.uniqueScope)
                && priority == that.priority
                && delay.equals(that.delay)
                && Objects.equals(version, that.version);
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionKey, uniqueKey, correlationKey, uniqueScope, priority, delay, version);
    }

    @Override
    public String toString() {
        return "StartOptions[partitionKey=" + partitionKey + ", uniqueKey=" + uniqueKey + ", correlationKey="
                + correlationKey + ", uniqueScope=" + uniqueScope + ", priority=" + priority + ", delay=" + delay
                + ", version=" + version + "]";
    }
}
