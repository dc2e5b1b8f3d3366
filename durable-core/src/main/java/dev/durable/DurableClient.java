package dev.durable;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Starts instances, delivers signals, cancels, finds and reads instances: by id, or by the business keys they were
 * started with (a unique key, a correlation key), one at a time or a page of them.
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
     * Cancels an instance. A runnable or parked (awaiting, or waiting for a timer) instance ends {@code cancelled}
     * at once. An executing one ends {@code cancelled} too: its running step is interrupted (at once when it runs on
     * this node, at its node's next heartbeat elsewhere) and whatever it returns is discarded. A cancelled instance
     * never runs another step, on any node; its unconsumed signals are cleared and its unique key is free again.
     * {@code reason} is kept as the instance's last error. Like a start or a signal, a cancel made in a Spring
     * transaction holds once that transaction commits, and not before.
     *
     * <p>Cancelling again answers {@link CancelResult.Cancellation#ALREADY_CANCELLED}; a missing, done or failed
     * instance is refused, and nothing is written. Cancelling does not run any step of the machine: to undo work on
     * cancel, see docs/DESIGN.md, "Cancel".
     */
    CancelResult cancel(long instanceId, @Nullable String reason);

    /** Sends a signal without a dedup key to the instance holding {@code uniqueKey}. */
    default SignalResult signalByUniqueKey(String uniqueKey, String name, @Nullable Object payload) {
        return signalByUniqueKey(uniqueKey, name, payload, null);
    }

    /**
     * Sends a signal to the instance holding {@code uniqueKey} now (see {@link #findByUniqueKey(String)}), as
     * {@link #signal(long, String, Object, String)} would send it to that instance's id. The holder is locked before
     * the signal is stored, so it cannot end or hand the key on in between. When no instance holds the key the
     * signal is refused ({@link SignalResult.Delivery#REFUSED_NO_KEY_HOLDER}, instance id 0) and nothing is stored;
     * a holder that ended (one whose unique scope keeps the key after its end) refuses it as an ended instance does.
     */
    SignalResult signalByUniqueKey(String uniqueKey, String name, @Nullable Object payload,
            @Nullable String dedupKey);

    /**
     * Cancels the instance holding {@code uniqueKey} now, as {@link #cancel(long, String)} would cancel it by id,
     * locking it first. When no instance holds the key the cancel is refused
     * ({@link CancelResult.Cancellation#REFUSED_NO_KEY_HOLDER}, instance id 0) and nothing is written.
     */
    CancelResult cancelByUniqueKey(String uniqueKey, @Nullable String reason);

    /**
     * Cancels, as {@link #cancel(long, String)} does, the unfinished instances among the first page {@code query}
     * selects: at most its limit, and at most {@value InstanceQuery#MAX_BULK_LIMIT}. The page is read oldest first
     * (whatever the query's order) and locked, and each instance is checked against the query again under its lock,
     * so an instance that moved on meanwhile (to another step, say) is not cancelled. All of it holds in one
     * transaction: the caller's, or one of its own. Pass {@link BulkResult#lastId()} to the query's
     * {@link InstanceQuery#afterId(long) afterId} for the next page.
     *
     * @throws IllegalArgumentException if the query's limit is over {@value InstanceQuery#MAX_BULK_LIMIT}, or it
     *                                  selects only ended statuses; nothing is written
     */
    BulkResult bulkCancel(InstanceQuery query, @Nullable String reason);

    /**
     * Retries, as {@link #retryFailed(long)} does, the failed and suspended instances among the first page
     * {@code query} selects:
     * at most its limit, and at most {@value InstanceQuery#MAX_BULK_LIMIT}, read oldest first and locked as in
     * {@link #bulkCancel(InstanceQuery, String)}. An instance whose unique key another instance holds now is skipped,
     * not retried; of several failed instances sharing a key, the latest is retried.
     *
     * @throws IllegalArgumentException if the query's limit is over {@value InstanceQuery#MAX_BULK_LIMIT}, or it
     *                                  selects neither failed nor suspended; nothing is written
     * @throws IllegalStateException    if a start took the unique key of one of the page's instances while the retry
     *                                  ran; nothing is retried, and the call can be made again
     */
    BulkResult bulkRetry(InstanceQuery query);

    /**
     * The children that steps of instance {@code parentId} started ({@link Outcome#startingChildren}), in the order
     * they were started, with their status and result as they stand now; empty for an instance without children.
     */
    List<DurableInstance> children(long parentId);

    /**
     * A page of an instance's children: at most {@code limit} (1 to {@link InstanceQuery#MAX_LIMIT}) whose id is
     * greater than {@code afterId}, in the order they were started; pass the last child's id for the next page.
     *
     * @throws IllegalArgumentException for a limit out of range
     */
    List<DurableInstance> children(long parentId, long afterId, int limit);

    /**
     * The history of an instance, oldest first: every transition committed since it started (when history is on, the
     * default), including cancels, operators' retries and claims that ended without an outcome. Empty for an instance
     * that does not exist, or whose history is off or was deleted with it.
     */
    default List<HistoryEntry> history(long instanceId) {
        return history(instanceId, 0, InstanceQuery.MAX_LIMIT);
    }

    /**
     * A page of an instance's history: at most {@code limit} entries (1 to {@link InstanceQuery#MAX_LIMIT}) whose id
     * is greater than {@code afterId}, oldest first; pass the last entry's id for the next page.
     *
     * @throws IllegalArgumentException for a limit out of range
     */
    List<HistoryEntry> history(long instanceId, long afterId, int limit);

    /**
     * The history events a machine's instances (of every version) recorded since {@code since}, counted by step,
     * event, next step and the status they left: the traffic of each of the machine's transitions, as the
     * dashboard's diagram shows it. The window's whole minutes that the nodes' history rollup counted (schema version
     * 18) are read from those counts, which keep the events of instances deleted since by retention, up to the longest
     * retention; the rest of the window, its first minute and the last few, from the history through its index by time
     * (schema version 17), joined to the instances by id. Its cost grows with the window's minutes, not its events
     * (docs/DESIGN.md, "Dashboard", for what the counts leave out).
     */
    List<TransitionCount> transitionCounts(String machine, Instant since);

    /**
     * How many transitions all nodes together wrote per minute, from the minute {@code since} falls in to the
     * current one (last, not over yet); empty while the history holds no row, and so always with history off. An
     * estimate from the history's ids (a rolled-back transaction's count too), found by a binary search of the primary
     * key per minute: its cost follows the number of minutes, not of rows (docs/DESIGN.md, "Dashboard").
     */
    List<Throughput> throughput(Instant since);

    /**
     * The nodes registered in the database, each with the machine versions it runs and how long ago its heartbeat
     * renewed it, by id: the live ones, and those that died and have not aged out yet (a day).
     */
    List<ClusterNode> nodes();

    /**
     * One instance, whatever its machine (registered on this node or not); its {@link DurableInstance#state(Class)}
     * and {@link DurableInstance#result(Class)} read with this engine's JSON codec.
     */
    Optional<DurableInstance> find(long instanceId);

    /**
     * The instance holding {@code uniqueKey} now ({@link StartOptions#uniqueKey(String)}): the one a start with the
     * key resolves to, and that {@link #signalByUniqueKey} and {@link #cancelByUniqueKey} address; empty when none
     * does. Every instance started with the key, ended ones too, is
     * {@code list(InstanceQuery.all().uniqueKey(uniqueKey))}.
     */
    Optional<DurableInstance> findByUniqueKey(String uniqueKey);

    /**
     * One page of the instances {@code query} selects, in its order; see {@link #find(long)} and
     * {@link InstanceQuery}. The next page is {@code list(query.afterId(lastIdOfThisPage))}.
     */
    List<DurableInstance> list(InstanceQuery query);

    /**
     * The number of instances per queue and status. A queue's count adds up every machine on it, children included;
     * {@link #countLive()} tells machines apart. Counting done instances reads the whole table.
     */
    Map<String, Map<InstanceStatus, Long>> count();

    /**
     * The number of instances {@code query} selects, per status: every one of them, ended ones included, not a page
     * (the query's {@code afterId}, limit and order play no part). Every status is present, zero included.
     * Its criteria are tested as {@link #list(InstanceQuery)} tests them: a unique or correlation key reaches its
     * index, other criteria read the whole table once, so this is a report's read, not a dashboard's
     * (docs/DESIGN.md, "Counting instances").
     *
     * <pre>{@code
     * Map<InstanceStatus, Long> orders = durable.count(InstanceQuery.all().machine("order"));
     * }</pre>
     */
    Map<InstanceStatus, Long> count(InstanceQuery query);

    /**
     * The instances that have not ended, and the failed ones, per queue, machine and version, each counted under what
     * it waits for ({@link WaitReason}: ready, timer, executing, signal, deadline, children, suspended, failed), in
     * one statement that reads only indexes: its cost follows these instances, not the history of ended ones
     * (docs/DESIGN.md, "Counting instances"). The starter's meters and actuator show the same.
     */
    InstanceCounts countLive();

    /**
     * A machine's instances (of every version, children included) that have not ended, and its failed ones, by the
     * step they are at and their status (a suspended one as {@link InstanceStatus#SUSPENDED}), as the dashboard's
     * diagram shows them; a step with none is absent. One statement that reads the indexes {@link #countLive()}
     * reads, for this machine's rows only: its cost follows them, not the machine's ended instances.
     */
    Map<String, Map<InstanceStatus, Long>> countByStep(String machine);

    /**
     * What each target finds now, in the order given: how many instances are past it and how long the one that has
     * waited longest of them has waited (docs/DESIGN.md, "Targets"). One statement for all of them, which counts each
     * target's breaches from an index: a queue's runnable rows, or a machine's unfinished rows at the step, at most what
     * {@link #countLive()} reads; none for an empty list. {@link Target#breaching()} lists the instances.
     *
     * <pre>{@code
     * TargetCheck payments = durable.checkTargets(List.of(
     *         Target.timeAtStep("order", "await-payment", Duration.ofHours(24)))).get(0);
     * List<DurableInstance> late = durable.list(payments.target().breaching());
     * }</pre>
     *
     * @throws IllegalArgumentException if a target is named twice
     */
    List<TargetCheck> checkTargets(List<Target> targets);

    /**
     * Per queue: counts by status, the age of the oldest runnable instance, expired leases not yet reaped. Counting
     * done instances reads the whole table, history included: for frequent polling use {@link #summarizeLive()}.
     */
    List<QueueSummary> summarize();

    /**
     * As {@link #summarize()}, but without counting done and cancelled instances (their statuses are absent from
     * {@link QueueSummary#counts()}); a queue with no unfinished instance is absent. It is {@link #countLive()} summed
     * per queue, and reads only indexes, so its cost does not grow with the history of finished instances.
     */
    List<QueueSummary> summarizeLive();

    /**
     * What is in flight (docs/DESIGN.md, "What is in flight"): the unfinished instances by machine, version, step and
     * status, each group with its count, the distinct shapes of its stored states and its pending signals by name;
     * and, apart, the failed instances. It reads one snapshot of the database, in a read-only transaction of its
     * own, and costs what the number of groups says, not the number of instances: counts are exact up to
     * {@link InFlightReport#countLimit()}, shapes come from a sample of each group. The report holds no stored value,
     * so it can be kept ({@link InFlightReport#write(java.nio.file.Path)}) and a deploy checked against it.
     */
    InFlightReport inFlight();

    /**
     * Makes a failed instance runnable again at the step it failed at, with attempt 0 (an operator's decision
     * after fixing the cause). Its last error is kept until the next one.
     *
     * <p>Also resumes a {@linkplain InstanceStatus#SUSPENDED suspended} instance, once code that can run it without
     * losing data is deployed (an upcaster, say): it is picked again at once, at the step and attempt it was
     * suspended at. Should its state still not read whole, it is suspended again.
     *
     * <p>An instance that is missing ({@link RetryResult.Retry#REFUSED_UNKNOWN_INSTANCE}), or neither failed nor
     * suspended ({@link RetryResult.Retry#REFUSED_NOT_FAILED}, with the status it has: running, waiting, done or
     * cancelled), is refused, and nothing is written. Like a cancel, a retry made in a Spring transaction holds once
     * that transaction commits.
     *
     * @return {@link RetryResult.Retry#RETRIED} for a failed instance, {@link RetryResult.Retry#RESUMED} for a
     *         suspended one, or why it was refused; {@link RetryResult#orThrow()} turns a refusal into an exception
     * @throws IllegalStateException if another instance now holds the instance's unique key; nothing is written
     */
    RetryResult retryFailed(long instanceId);

    /**
     * An operator's repair (docs/DESIGN.md, "Operator repair"): runs an ended instance (done, failed or cancelled)
     * again, in place, from {@code step}, with attempt 0 and no result or error, its state replaced by {@code state}
     * unless that is null. The history records the event {@code rerun} with where it had ended, the step chosen, and
     * {@code operator} and whether the state was edited. The row is locked by id and judged as the lock left it: an
     * instance that has not ended is refused and nothing is written.
     *
     * @param operator who repairs it, as the history shall name them
     * @throws IllegalArgumentException for a step the instance's machine version does not have, a state that does not
     *                                  read whole as its state type, or a blank operator; nothing is written
     * @throws IllegalStateException    when this node does not run the instance's machine version, or another
     *                                  instance holds its unique key now; nothing is written
     */
    RerunResult rerun(long instanceId, String step, @Nullable Object state, String operator);

    /**
     * Creates the recurring schedule {@code schedule.name()}, or updates it: every tick starts one instance of
     * {@code machine} with {@code state}, once in the whole cluster. An update of the cron expression or zone starts
     * over from the next tick after now; pausing is kept. A schedule created here is not declared: a node starting
     * with a machine that declares a schedule of the same name takes it over.
     *
     * @throws IllegalArgumentException if the machine is not registered on this node or the state is not of its
     *                                  state type; nothing is written
     */
    StoredSchedule schedule(Class<?> machine, Schedule schedule, @Nullable Object state);

    /** As {@link #schedule(Class, Schedule, Object)}, naming the machine by its name. */
    StoredSchedule schedule(String machine, Schedule schedule, @Nullable Object state);

    /** The schedule named {@code name}, whatever its machine. */
    Optional<StoredSchedule> findSchedule(String name);

    /** Every schedule, by name. */
    List<StoredSchedule> schedules();

    /**
     * Stops the schedule from firing until {@link #resumeSchedule(String)}; ticks that fall meanwhile are skipped.
     *
     * @return whether the schedule exists and was not paused
     */
    boolean pauseSchedule(String name);

    /**
     * Lets a paused schedule fire again, from its next tick after now.
     *
     * @return whether the schedule exists and was paused
     */
    boolean resumeSchedule(String name);

    /**
     * Deletes a schedule; instances it started are left alone. A declared schedule comes back when a node with its
     * machine starts: delete it from the machine's definition instead.
     *
     * @return whether it existed
     */
    boolean deleteSchedule(String name);
}
