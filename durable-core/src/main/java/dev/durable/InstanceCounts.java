package dev.durable;

import java.time.Duration;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The instances that have not ended, and the failed ones, counted by queue, machine, version and what each waits for
 * ({@link WaitReason}), as one statement saw them ({@link DurableClient#countLive()}; docs/DESIGN.md, "Counting
 * instances"). Every such instance is counted once, under one reason: the counts of a queue's reasons add up to its
 * {@link QueueSummary} of the same moment. A machine's children are counted under their own machine, on whatever
 * queue they run.
 *
 * <pre>{@code
 * InstanceCounts orders = durable.countLive().machine("order");
 * long waitingForPayment = orders.count(WaitReason.SIGNAL) + orders.count(WaitReason.DEADLINE);
 * long waitingForLines = orders.count(WaitReason.CHILDREN);
 * }</pre>
 *
 * @param groups one per queue, machine and version with at least one such instance, ordered by queue, machine and
 *               version
 */
public record InstanceCounts(List<Group> groups) {

    private static final Comparator<Group> ORDER = Comparator.comparing(Group::queue)
            .thenComparing(Group::machine).thenComparingInt(Group::version);

    public InstanceCounts {
        groups = groups.stream().map(Objects::requireNonNull).sorted(ORDER).toList();
    }

    /**
     * The instances of one version of a machine on one queue.
     *
     * @param counts         the instances per reason, every reason present (zero included)
     * @param oldestReadyAge how long the {@linkplain WaitReason#READY ready} instance that has been due longest has
     *                       waited since it fell due; {@code null} if none is ready
     * @param expiredLeases  {@linkplain WaitReason#EXECUTING executing} instances whose lease expired and that the
     *                       reaper has not taken back yet (their node died or stalled)
     */
    public record Group(String queue, String machine, int version, Map<WaitReason, Long> counts,
            @Nullable Duration oldestReadyAge, long expiredLeases) {

        public Group {
            Objects.requireNonNull(queue, "queue");
            Objects.requireNonNull(machine, "machine");
            Map<WaitReason, Long> every = new EnumMap<>(WaitReason.class);
            for (WaitReason reason : WaitReason.values()) {
                every.put(reason, counts.getOrDefault(reason, 0L));
            }
            counts = Collections.unmodifiableMap(every);
        }

        /** The instances waiting for {@code reason}. */
        public long count(WaitReason reason) {
            return counts.get(reason);
        }

        /**
         * The instances of {@code status}: the sum of its reasons.
         *
         * @throws IllegalArgumentException for {@code done} and {@code cancelled}, which are not counted here
         */
        public long count(InstanceStatus status) {
            return sum(counts, reason -> reason.status() == counted(status));
        }

        /** Every instance of the group. */
        public long total() {
            return sum(counts, reason -> true);
        }
    }

    /** The instances waiting for {@code reason}, in every group. */
    public long count(WaitReason reason) {
        return groups.stream().mapToLong(group -> group.count(reason)).sum();
    }

    /**
     * The instances of {@code status}, in every group: the sum of its reasons.
     *
     * @throws IllegalArgumentException for {@code done} and {@code cancelled}, which are not counted here
     *                                  ({@link DurableClient#count(InstanceQuery)} counts them)
     */
    public long count(InstanceStatus status) {
        InstanceStatus counted = counted(status);
        return groups.stream().mapToLong(group -> group.count(counted)).sum();
    }

    /** Every instance counted. */
    public long total() {
        return groups.stream().mapToLong(Group::total).sum();
    }

    /** The instances per reason, in every group; every reason present (zero included). */
    public Map<WaitReason, Long> byReason() {
        Map<WaitReason, Long> byReason = new EnumMap<>(WaitReason.class);
        for (WaitReason reason : WaitReason.values()) {
            byReason.put(reason, count(reason));
        }
        return Collections.unmodifiableMap(byReason);
    }

    /** The longest a ready instance has waited since it fell due, in every group; {@code null} if none is ready. */
    public @Nullable Duration oldestReadyAge() {
        return groups.stream().map(Group::oldestReadyAge).filter(Objects::nonNull).max(Comparator.naturalOrder())
                .orElse(null);
    }

    /** Executing instances whose lease expired and that are not taken back yet, in every group. */
    public long expiredLeases() {
        return groups.stream().mapToLong(Group::expiredLeases).sum();
    }

    /** The queues that have a group. */
    public Set<String> queues() {
        Set<String> queues = new TreeSet<>();
        groups.forEach(group -> queues.add(group.queue()));
        return Collections.unmodifiableSet(queues);
    }

    /** The groups of one queue (none if it has none). */
    public InstanceCounts queue(String queue) {
        return new InstanceCounts(groups.stream().filter(group -> group.queue().equals(queue)).toList());
    }

    /** The groups of one machine, every version and queue (none if it has none). */
    public InstanceCounts machine(String machine) {
        return new InstanceCounts(groups.stream().filter(group -> group.machine().equals(machine)).toList());
    }

    /** The groups of one version of a machine, on every queue (none if it has none). */
    public InstanceCounts machine(String machine, int version) {
        return new InstanceCounts(groups.stream()
                .filter(group -> group.machine().equals(machine) && group.version() == version).toList());
    }

    private static long sum(Map<WaitReason, Long> counts, Predicate<WaitReason> which) {
        return counts.entrySet().stream().filter(entry -> which.test(entry.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }

    private static InstanceStatus counted(InstanceStatus status) {
        if (status == InstanceStatus.DONE || status == InstanceStatus.CANCELLED) {
            throw new IllegalArgumentException("The live counts hold no " + status + " instances: count them with"
                    + " DurableClient.count(InstanceQuery), which reads every instance the query selects");
        }
        return status;
    }
}
