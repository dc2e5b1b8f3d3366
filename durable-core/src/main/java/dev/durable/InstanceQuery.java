package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Which instances {@link DurableClient#list(InstanceQuery)} returns, one page at a time, and which ones the bulk
 * operations ({@link DurableClient#bulkRetry(InstanceQuery)}, {@link DurableClient#bulkCancel(InstanceQuery, String)})
 * act on. Every criterion is optional, and an instance must meet all that are set. Immutable and checked as it is
 * built: start from {@link #all()}, and every setter returns a copy with one criterion changed (the getters share
 * the setters' names).
 *
 * <pre>{@code
 * InstanceQuery stuck = InstanceQuery.all().machine("order").step("ship").status(InstanceStatus.FAILED)
 *         .errorContains("carrier down").newestFirst().limit(50);
 * }</pre>
 *
 * <p>Pages are ordered by id, oldest first or {@linkplain #newestFirst() newest first}, and paged by keyset: pass
 * the last id of a page to {@link #afterId(long)} for the next one. A page is read in that order through the primary
 * key, or through the index of a {@linkplain #uniqueKey(String) unique} or {@linkplain #correlationKey(String)
 * correlation key} when one is set, and the other criteria are checked on the way: a page costs what it reads until
 * it has {@link #limit()} instances (docs/DESIGN.md, "Finding instances").
 */
public final class InstanceQuery {

    /** The page size of {@link #all()}. */
    public static final int DEFAULT_LIMIT = 100;
    /** The largest page {@link DurableClient#list(InstanceQuery)} returns. */
    public static final int MAX_LIMIT = 10_000;
    /** The most instances one bulk operation acts on: a bulk query's limit is at most this. */
    public static final int MAX_BULK_LIMIT = 1_000;

    /** The order of a page. */
    public enum Order {
        /** Ascending ids: the instance started first comes first. */
        OLDEST_FIRST,
        /** Descending ids. */
        NEWEST_FIRST;

        /** The lower-case name: this constant's one spelling outside Java code, in JSON and the actuator. */
        @JsonValue
        public String label() {
            return Labels.of(this);
        }

        /**
         * The constant spelled {@code label}.
         *
         * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
         */
        @JsonCreator
        public static Order fromLabel(String label) {
            return Labels.parse(Order.class, label);
        }
    }

    private static final InstanceQuery ALL = new InstanceQuery(new Criteria());

    /** The fields, so that each setter changes one of them on a copy and the constructor checks them all. */
    private static final class Criteria implements Cloneable {
        @Nullable String queue;
        @Nullable String machine;
        @Nullable Integer version;
        @Nullable String step;
        Set<InstanceStatus> statuses = Collections.unmodifiableSet(EnumSet.noneOf(InstanceStatus.class));
        @Nullable String uniqueKey;
        @Nullable String correlationKey;
        @Nullable Instant createdFrom;
        @Nullable Instant createdBefore;
        @Nullable Instant updatedFrom;
        @Nullable Instant updatedBefore;
        @Nullable String errorContains;
        @Nullable Duration waitingLongerThan;
        long afterId;
        int limit = DEFAULT_LIMIT;
        Order order = Order.OLDEST_FIRST;

        List<Object> values() {
            return Arrays.asList(queue, machine, version, step, statuses, uniqueKey, correlationKey, createdFrom,
                    createdBefore, updatedFrom, updatedBefore, errorContains, waitingLongerThan, afterId, limit,
                    order);
        }

        @Override
        protected Criteria clone() {
            try {
                return (Criteria) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Criteria criteria;

    private InstanceQuery(Criteria criteria) {
        checkText("queue", criteria.queue);
        checkText("machine", criteria.machine);
        checkText("step", criteria.step);
        checkText("uniqueKey", criteria.uniqueKey);
        checkText("correlationKey", criteria.correlationKey);
        checkText("errorContains", criteria.errorContains);
        checkRange("created", criteria.createdFrom, criteria.createdBefore);
        checkRange("updated", criteria.updatedFrom, criteria.updatedBefore);
        if (criteria.waitingLongerThan != null && criteria.waitingLongerThan.isNegative()) {
            throw new IllegalArgumentException("waitingLongerThan must not be negative, was "
                    + criteria.waitingLongerThan);
        }
        if (criteria.afterId < 0) {
            throw new IllegalArgumentException("afterId must not be negative, was " + criteria.afterId
                    + " (0 reads from the first page)");
        }
        if (criteria.limit < 1 || criteria.limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", was " + criteria.limit);
        }
        this.criteria = criteria;
    }

    /** Every instance, oldest first, the first page of {@value #DEFAULT_LIMIT}. */
    public static InstanceQuery all() {
        return ALL;
    }

    private InstanceQuery with(Consumer<Criteria> change) {
        Criteria copy = criteria.clone();
        change.accept(copy);
        return new InstanceQuery(copy);
    }

    /** Instances on this queue; {@code null} for any. */
    public InstanceQuery queue(@Nullable String queue) {
        return with(c -> c.queue = queue);
    }

    /** Instances of this machine (by name); {@code null} for any. */
    public InstanceQuery machine(@Nullable String machine) {
        return with(c -> c.machine = machine);
    }

    /**
     * Instances running this machine version (with {@link #machine(String)}, of that machine); {@code null} for any.
     */
    public InstanceQuery version(@Nullable Integer version) {
        return with(c -> c.version = version);
    }

    /** Instances at this step: the one they run next, run now, are parked in or ended at; {@code null} for any. */
    public InstanceQuery step(@Nullable String step) {
        return with(c -> c.step = step);
    }

    /** Instances in this status; {@code null} for any. See {@link #statuses(Collection)} for several. */
    public InstanceQuery status(@Nullable InstanceStatus status) {
        return status == null ? with(c -> c.statuses = ALL.criteria.statuses) : statuses(EnumSet.of(status));
    }

    /**
     * Instances in any of these statuses. Their labels outside Java read as statuses through
     * {@link InstanceStatus#fromLabel(String)}, which refuses an unknown one, naming it and the labels there are.
     *
     * @throws IllegalArgumentException if {@code statuses} is empty (call {@code status(null)} for any status)
     */
    public InstanceQuery statuses(Collection<InstanceStatus> statuses) {
        Objects.requireNonNull(statuses, "statuses must not be null");
        if (statuses.isEmpty()) {
            throw new IllegalArgumentException("Name at least one status, or none at all with status(null) for any");
        }
        Set<InstanceStatus> copy = Collections.unmodifiableSet(EnumSet.copyOf(statuses));
        return with(c -> c.statuses = copy);
    }

    /**
     * Instances started with this unique key: the one holding it now, if any, and those that held it before and
     * ended ({@link DurableInstance#holdsUniqueKey()} tells them apart); {@code null} for any. Read through the key's
     * own index.
     */
    public InstanceQuery uniqueKey(@Nullable String uniqueKey) {
        return with(c -> c.uniqueKey = uniqueKey);
    }

    /**
     * Instances started with this correlation key ({@link StartOptions#correlationKey(String)}); {@code null} for
     * any. Read through the key's own index.
     */
    public InstanceQuery correlationKey(@Nullable String correlationKey) {
        return with(c -> c.correlationKey = correlationKey);
    }

    /** Instances created at or after {@code from}; {@code null} for no lower bound. */
    public InstanceQuery createdFrom(@Nullable Instant from) {
        return with(c -> c.createdFrom = from);
    }

    /** Instances created before {@code before}; {@code null} for no upper bound. */
    public InstanceQuery createdBefore(@Nullable Instant before) {
        return with(c -> c.createdBefore = before);
    }

    /** Instances last changed at or after {@code from}; {@code null} for no lower bound. */
    public InstanceQuery updatedFrom(@Nullable Instant from) {
        return with(c -> c.updatedFrom = from);
    }

    /**
     * Instances last changed before {@code before}; {@code null} for no upper bound. An ended instance is not changed
     * again (unless a failed one is retried), so with an ended status this reads "ended before".
     */
    public InstanceQuery updatedBefore(@Nullable Instant before) {
        return with(c -> c.updatedBefore = before);
    }

    /**
     * Instances whose last error (a step's failure, a stop's reason, a cancel's reason) contains {@code text},
     * ignoring case; {@code null} for any instance, with or without an error.
     */
    public InstanceQuery errorContains(@Nullable String text) {
        return with(c -> c.errorContains = text);
    }

    /**
     * Instances that have waited where they are for longer than {@code duration}: runnable ones due for longer (not
     * picked yet, not waiting on a timer, not suspended), and parked ones parked for longer, each counted from the
     * instant it last fell due or parked; {@code null} for any instance. With a machine and a step it lists the
     * breaches of a time-at-step {@link Target}, with a queue and the status runnable those of an oldest-runnable-age
     * one ({@link Target#breaching()}). Measured on the database's clock.
     *
     * @throws IllegalArgumentException for a negative duration
     */
    public InstanceQuery waitingLongerThan(@Nullable Duration duration) {
        return with(c -> c.waitingLongerThan = duration);
    }

    /**
     * The page after the instance {@code afterId}, in this query's order: pass the last id of the previous page.
     * 0, the default, reads from the first page.
     */
    public InstanceQuery afterId(long afterId) {
        return with(c -> c.afterId = afterId);
    }

    /** The most instances a page holds: 1 to {@value #MAX_LIMIT}; default {@value #DEFAULT_LIMIT}. */
    public InstanceQuery limit(int limit) {
        return with(c -> c.limit = limit);
    }

    /** The order of the pages; default {@link Order#OLDEST_FIRST}. */
    public InstanceQuery order(Order order) {
        Objects.requireNonNull(order, "order must not be null");
        return with(c -> c.order = order);
    }

    /** Pages in {@link Order#NEWEST_FIRST} order: the instance started last comes first. */
    public InstanceQuery newestFirst() {
        return order(Order.NEWEST_FIRST);
    }

    public @Nullable String queue() {
        return criteria.queue;
    }

    public @Nullable String machine() {
        return criteria.machine;
    }

    public @Nullable Integer version() {
        return criteria.version;
    }

    public @Nullable String step() {
        return criteria.step;
    }

    /** The statuses an instance must be in; empty for any. */
    public Set<InstanceStatus> statuses() {
        return criteria.statuses;
    }

    public @Nullable String uniqueKey() {
        return criteria.uniqueKey;
    }

    public @Nullable String correlationKey() {
        return criteria.correlationKey;
    }

    public @Nullable Instant createdFrom() {
        return criteria.createdFrom;
    }

    public @Nullable Instant createdBefore() {
        return criteria.createdBefore;
    }

    public @Nullable Instant updatedFrom() {
        return criteria.updatedFrom;
    }

    public @Nullable Instant updatedBefore() {
        return criteria.updatedBefore;
    }

    public @Nullable String errorContains() {
        return criteria.errorContains;
    }

    public @Nullable Duration waitingLongerThan() {
        return criteria.waitingLongerThan;
    }

    public long afterId() {
        return criteria.afterId;
    }

    public int limit() {
        return criteria.limit;
    }

    public Order order() {
        return criteria.order;
    }

    private static void checkText(String name, @Nullable String value) {
        if (value != null && value.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException(name + " holds a NUL character (\\u0000) at index "
                    + value.indexOf('\u0000') + ", which no stored value can hold");
        }
    }

    private static void checkRange(String name, @Nullable Instant from, @Nullable Instant before) {
        if (from != null && before != null && !from.isBefore(before)) {
            throw new IllegalArgumentException(name + "From (" + from + ") must be before " + name + "Before ("
                    + before + "): no instance is " + name + " in between");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof InstanceQuery that && criteria.values().equals(that.criteria.values());
    }

    @Override
    public int hashCode() {
        return criteria.values().hashCode();
    }

    @Override
    public String toString() {
        Criteria c = criteria;
        return "InstanceQuery[queue=" + c.queue + ", machine=" + c.machine + ", version=" + c.version + ", step="
                + c.step + ", statuses=" + c.statuses + ", uniqueKey=" + c.uniqueKey + ", correlationKey="
                + c.correlationKey + ", createdFrom=" + c.createdFrom + ", createdBefore=" + c.createdBefore
                + ", updatedFrom=" + c.updatedFrom + ", updatedBefore=" + c.updatedBefore + ", errorContains="
                + c.errorContains + ", waitingLongerThan=" + c.waitingLongerThan + ", afterId=" + c.afterId
                + ", limit=" + c.limit + ", order=" + c.order + "]";
    }
}
