package dev.durable;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Starts instances, delivers signals and reads instances.
 *
 * <p>Starts and signals made inside a Spring-managed transaction on the engine's {@code DataSource} join that
 * transaction: the instance (or signal) exists if and only if the caller commits. Outside a transaction each call
 * commits on its own. Either way, once committed, this node's poller is woken at once.
 *
 * <p>A machine is named either by its name or by the class it was registered with; new instances use the highest
 * registered version of the machine unless {@link StartOptions#version(int)} names one.
 */
public interface DurableClient {

    /** Starts an instance of {@code machine} with default options. */
    default StartResult start(Class<?> machine, @Nullable Object state) {
        return start(machine, state, StartOptions.defaults());
    }

    StartResult start(Class<?> machine, @Nullable Object state, StartOptions options);

    default StartResult start(String machine, @Nullable Object state) {
        return start(machine, state, StartOptions.defaults());
    }

    StartResult start(String machine, @Nullable Object state, StartOptions options);

    /**
     * Starts many instances of one machine in a single statement. Unique keys are deduplicated against existing
     * instances and within the batch (the first request holding a key wins). Results are in request order.
     */
    List<StartResult> startAll(Class<?> machine, List<StartRequest> requests);

    List<StartResult> startAll(String machine, List<StartRequest> requests);

    /** Sends a signal without a dedup key. */
    default SignalResult signal(long instanceId, String name, @Nullable Object payload) {
        return signal(instanceId, name, payload, null);
    }

    /**
     * Sends a signal to one instance. If the instance is parked on {@code name} it becomes runnable, and its step
     * finds the signal in its inbox. A second signal to the same instance with the same non-null
     * {@code dedupKey} is a no-op. A signal to a missing or terminal instance is refused and nothing is stored.
     */
    SignalResult signal(long instanceId, String name, @Nullable Object payload, @Nullable String dedupKey);

    /**
     * One instance, whatever its machine (registered on this node or not); its {@link DurableInstance#state(Class)}
     * and {@link DurableInstance#result(Class)} read with this engine's JSON codec.
     */
    Optional<DurableInstance> find(long instanceId);

    /** The instances {@code query} selects, by id; see {@link #find(long)}. */
    List<DurableInstance> list(InstanceQuery query);

    /** The number of instances per queue and status. */
    Map<String, Map<InstanceStatus, Long>> count();

    /**
     * Per queue: counts by status, the age of the oldest runnable instance, expired leases not yet reaped. Counting
     * done instances reads the whole table, history included: for frequent polling use {@link #summarizeLive()}.
     */
    List<QueueSummary> summarize();

    /**
     * As {@link #summarize()}, but without counting done instances (their status is absent from
     * {@link QueueSummary#counts()}); a queue with no unfinished instance is absent. It reads only the indexes of
     * the other statuses, so its cost does not grow with the history of finished instances.
     */
    List<QueueSummary> summarizeLive();

    /**
     * Makes a failed instance runnable again at the step it failed at, with attempt 0 (an operator's decision
     * after fixing the cause). Its last error is kept until the next one.
     *
     * @return whether the instance was failed and is now runnable; false if it is missing or not failed
     * @throws IllegalStateException if another instance now holds the instance's unique key
     */
    boolean retryFailed(long instanceId);
}
