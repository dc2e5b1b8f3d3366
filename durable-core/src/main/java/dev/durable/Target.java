package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * A queue-health target: how long instances may wait before an operator should hear of it (docs/DESIGN.md,
 * "Targets"). An instance past its target is a <em>breach</em>; {@link DurableClient#checkTargets(java.util.List)}
 * counts them, and {@link #breaching()} is the query that lists them.
 *
 * <ul>
 *   <li>{@link #oldestRunnableAge(String, Duration)}: no due instance of the queue should wait longer than the limit
 *       for a node to pick it (the age of {@link QueueSummary#oldestRunnableAge()}): a breach says the queue's nodes
 *       do not keep up;</li>
 *   <li>{@link #timeAtStep(String, String, Duration)}: no instance of the machine should wait at the step longer
 *       than the limit, due or parked ("awaiting payment for more than 24 hours"): a breach says something the step
 *       waits for does not come.</li>
 * </ul>
 *
 * <p>How long an instance has waited is counted from the instant it last fell due or parked, the row's
 * {@code eligible_at}: a parked instance woken and parked again at the same step starts over, and an instance waiting
 * on a timer or suspended, or running a step, does not wait in this sense.
 *
 * @param kind    which of the two
 * @param queue   the queue of an oldest-runnable-age target; {@code null} for a time-at-step one
 * @param machine the machine (every version of it) of a time-at-step target; {@code null} otherwise
 * @param step    the step of a time-at-step target; {@code null} otherwise
 * @param limit   how long an instance may wait; positive
 */
public record Target(Kind kind, @Nullable String queue, @Nullable String machine, @Nullable String step,
        Duration limit) {

    /** The two kinds of target. */
    public enum Kind {
        /** A bound on how long the due instances of a queue wait for a node to pick them. */
        OLDEST_RUNNABLE_AGE,
        /** A bound on how long the instances of a machine wait at one of its steps, due or parked. */
        TIME_AT_STEP;

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
        public static Kind fromLabel(String label) {
            return Labels.parse(Kind.class, label);
        }
    }

    /**
     * @throws IllegalArgumentException for a limit that is not positive, a blank name, or names that do not fit the
     *                                  kind
     */
    public Target {
        Objects.requireNonNull(kind, "kind must not be null");
        Objects.requireNonNull(limit, "limit must not be null");
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("The limit of a target must be positive, was " + limit);
        }
        if (kind == Kind.OLDEST_RUNNABLE_AGE) {
            requireName("queue", queue);
            if (machine != null || step != null) {
                throw new IllegalArgumentException("An oldest-runnable-age target names a queue only, not a machine"
                        + " or a step");
            }
        } else {
            requireName("machine", machine);
            requireName("step", step);
            if (queue != null) {
                throw new IllegalArgumentException("A time-at-step target names a machine and a step, not a queue");
            }
        }
    }

    /** No due instance of {@code queue} waits longer than {@code limit} to be picked. */
    public static Target oldestRunnableAge(String queue, Duration limit) {
        return new Target(Kind.OLDEST_RUNNABLE_AGE, queue, null, null, limit);
    }

    /** No instance of {@code machine} (any version) waits at {@code step} longer than {@code limit}, due or parked. */
    public static Target timeAtStep(String machine, String step, Duration limit) {
        return new Target(Kind.TIME_AT_STEP, null, machine, step, limit);
    }

    /**
     * The instances in breach of this target, oldest first, the first page of {@link InstanceQuery#DEFAULT_LIMIT}: for
     * a queue, its runnable instances due for longer than the limit; for a step, the machine's instances at the step
     * that have been due or parked there for longer. Page on with {@link InstanceQuery#afterId(long)}.
     */
    public InstanceQuery breaching() {
        return kind == Kind.OLDEST_RUNNABLE_AGE
                ? InstanceQuery.all().queue(queue).status(InstanceStatus.RUNNABLE).waitingLongerThan(limit)
                : InstanceQuery.all().machine(machine).step(step).waitingLongerThan(limit);
    }

    /**
     * {@link #breaching()}'s criteria as a search's filters, by the names the query API reads them under and in a URL
     * query's form, each value URL-encoded: {@code queue=orders&status=runnable&waitingLongerThan=PT30S} for a queue,
     * {@code machine=order&step=await-payment&waitingLongerThan=PT24H} for a step. The one spelling of a target's
     * breaching instances as filters: the actuator gives it for {@code GET /actuator/durable/instances}, the dashboard
     * links its search with it (docs/DESIGN.md, "Targets").
     */
    public String breachingFilters() {
        InstanceQuery query = breaching();
        Map<String, String> filters = new LinkedHashMap<>();
        if (query.machine() != null) {
            filters.put("machine", query.machine());
        }
        if (query.step() != null) {
            filters.put("step", query.step());
        }
        if (query.queue() != null) {
            filters.put("queue", query.queue());
        }
        if (!query.statuses().isEmpty()) {
            filters.put("status", String.join(",", query.statuses().stream().map(InstanceStatus::label).toList()));
        }
        filters.put("waitingLongerThan", String.valueOf(query.waitingLongerThan()));
        StringJoiner joined = new StringJoiner("&");
        filters.forEach((name, value) -> joined.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return joined.toString();
    }

    /** E.g. {@code queue orders: oldest runnable age 30s} or {@code order at await-payment: time at step 24h}. */
    public String describe() {
        String bound = spoken(limit);
        return kind == Kind.OLDEST_RUNNABLE_AGE ? "queue " + queue + ": oldest runnable age " + bound
                : machine + " at " + step + ": time at step " + bound;
    }

    /** A duration as the descriptions write it: {@code 24h}, {@code 1m30s}, {@code 42.5s}. */
    static String spoken(Duration duration) {
        return duration.toString().substring(2).toLowerCase(Locale.ROOT);
    }

    private static void requireName(String what, @Nullable String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("A target names its " + what + ", was " + (name == null ? "null"
                    : "'" + name + "'"));
        }
        if (name.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException("The " + what + " of a target holds a NUL character (\\u0000)");
        }
    }
}
