package dev.durable.runtime.control;

import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.InstanceCounts;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.QueueSummary;
import dev.durable.RerunResult;
import dev.durable.RetryResult;
import dev.durable.StatePatch;
import dev.durable.WaitReason;
import dev.durable.json.JsonCodec;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import java.sql.Array;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The SQL of the read and operator API of the {@link DefaultDurableClient}: one instance, a parent's children, an
 * instance's history, counts, the live counts by machine and reason, per-queue summaries, and an operator's retry of
 * failed instances, one or a locked page of them (pages of instances are {@link SearchRepository}'s). Joins the
 * caller's Spring transaction, if any; the statements go through {@link StatementPlanning#ordinary()}.
 */
public final class QueryRepository {

    // The read statements show a suspended instance, stored as a runnable row with its reason in suspension, with the
    // status 'suspended' (docs/DESIGN.md, "Suspension").
    private static final String FIND = """
            /* durable: find */
            SELECT id, machine, machine_version, step,
                   CASE WHEN suspension IS NOT NULL AND status = 'runnable' THEN 'suspended' ELSE status::text END
                       AS status,
                   queue, priority, partition_key, awaits,
                   attempt, eligible_at, last_error, lease_owner, lease_expires_at, unique_key,
                   unique_guard IS NOT NULL AS holds_unique_key, correlation_key, state::text AS state,
                   result::text AS result, created_at, updated_at, parent_id
            FROM {schema}.durable_instance
            WHERE id = :id
            """;

    // A page of a parent's children in the order they were started, through the parent index (a step reads them all:
    // no limit).
    public static final String CHILDREN = """
            /* durable: children */
            SELECT id, machine, machine_version, step,
                   CASE WHEN suspension IS NOT NULL AND status = 'runnable' THEN 'suspended' ELSE status::text END
                       AS status,
                   queue, priority, partition_key, awaits,
                   attempt, eligible_at, last_error, lease_owner, lease_expires_at, unique_key,
                   unique_guard IS NOT NULL AS holds_unique_key, correlation_key, state::text AS state,
                   result::text AS result, created_at, updated_at, parent_id
            FROM {schema}.durable_instance
            WHERE parent_id = :parentId AND id > :afterId
            ORDER BY id
            LIMIT :limit
            """;

    // A page of an instance's history, oldest first, through the history index.
    public static final String HISTORY = """
            /* durable: history */
            SELECT id, instance_id, step, event, next_step,
                   CASE WHEN event = 'suspend' THEN 'suspended' ELSE status::text END AS status,
                   attempt, node, lease_token, at,
                   duration_ms, error, signals, patch::text AS patch, upcast_patch::text AS upcast_patch
            FROM {schema}.durable_history
            WHERE instance_id = :instanceId AND id > :afterId
            ORDER BY id
            LIMIT :limit
            """;

    private static final String COUNT = """
            /* durable: count */
            SELECT queue,
                   CASE WHEN suspension IS NOT NULL AND status = 'runnable' THEN 'suspended' ELSE status::text END
                       AS status,
                   count(*) AS n
            FROM {schema}.durable_instance
            GROUP BY 1, 2
            """;

    // Per queue: the counts of the unfinished statuses (a suspended row is runnable with a reason, and counted apart),
    // the age of the oldest eligible runnable row, the expired leases, and the done and cancelled counts. Reads the
    // whole table.
    private static final String SUMMARIZE = """
            /* durable: summarize */
            SELECT queue,
                   count(*) FILTER (WHERE status = 'runnable' AND suspension IS NULL) AS runnable,
                   count(*) FILTER (WHERE status = 'runnable' AND suspension IS NOT NULL) AS suspended,
                   count(*) FILTER (WHERE status = 'executing') AS executing,
                   count(*) FILTER (WHERE status = 'awaiting_signal') AS awaiting_signal,
                   count(*) FILTER (WHERE status = 'failed') AS failed,
                   extract(epoch FROM now() - min(eligible_at)
                       FILTER (WHERE status = 'runnable' AND eligible_at <= now())) AS oldest_runnable_seconds,
                   count(*) FILTER (WHERE status = 'executing' AND lease_expires_at < now()) AS expired_leases,
                   count(*) FILTER (WHERE status = 'done') AS done,
                   count(*) FILTER (WHERE status = 'cancelled') AS cancelled
            FROM {schema}.durable_instance
            GROUP BY queue
            ORDER BY queue
            """;

    // The live counts (docs/DESIGN.md, "Counting instances"): the unfinished and failed instances per queue, machine,
    // version and reason, in one snapshot, with each group's oldest due eligible_at and expired leases (what
    // summarizeLive() sums per queue). The runnable, parked and failed rows come from durable_instance_step alone, an
    // index-only scan: schema version 13 includes the columns that say what each waits for. The executing rows, few,
    // come through the lease index. A suspended row is runnable at eligible_at = 'infinity', so the first branch
    // counted it as a timer; the last branch, through the index of suspended rows (its reason, text of any length, is
    // in no index entry), counts it as suspended and takes it off timer. eligible_at is only compared, never subtracted
    // from, unless bounded by now() (docs/DESIGN.md, pitfall P18).
    public static final String COUNT_LIVE = """
            /* durable: count live */
            WITH counted AS (
                SELECT queue, machine, machine_version,
                       CASE WHEN status = 'failed' THEN 'failed'
                            WHEN status = 'runnable' AND eligible_at <= now() THEN 'ready'
                            WHEN status = 'runnable' THEN 'timer'
                            WHEN awaits_children IS NOT NULL THEN 'children'
                            WHEN deadline IS NOT NULL THEN 'deadline'
                            ELSE 'signal' END AS reason,
                       count(*) AS n,
                       min(eligible_at) FILTER (WHERE status = 'runnable' AND eligible_at <= now()) AS oldest_ready,
                       0 AS expired
                FROM {schema}.durable_instance
                WHERE status IN ('runnable', 'awaiting_signal', 'failed')
                GROUP BY 1, 2, 3, 4
                UNION ALL
                SELECT queue, machine, machine_version, 'executing', count(*), NULL,
                       count(*) FILTER (WHERE lease_expires_at < now())
                FROM {schema}.durable_instance
                WHERE status = 'executing'
                GROUP BY 1, 2, 3
                UNION ALL
                SELECT s.queue, s.machine, s.machine_version, r.reason, r.sign * s.n, NULL, 0
                FROM (SELECT queue, machine, machine_version, count(*) AS n
                      FROM {schema}.durable_instance
                      WHERE status = 'runnable' AND suspension IS NOT NULL
                      GROUP BY 1, 2, 3) s
                CROSS JOIN (VALUES ('suspended', 1), ('timer', -1)) AS r (reason, sign)
            )
            SELECT queue, machine, machine_version, reason, sum(n) AS n,
                   extract(epoch FROM now() - min(oldest_ready)) AS oldest_ready_seconds,
                   sum(expired) AS expired_leases
            FROM counted
            GROUP BY 1, 2, 3, 4
            """;

    // An operator's retry of a failed instance: back to runnable at the step it failed at, attempt 0. A child that
    // runs again is no longer ended: its parent counts one ended child less (docs/DESIGN.md, "Children"). The same
    // retry resumes a suspended instance (runnable with a reason, docs/DESIGN.md, "Suspension"): its reason goes and it
    // is eligible now, at the attempt it was suspended at; it never ended, so its parent counts nothing. The row is
    // locked by id, and by id only, then judged as the lock left it (a suspension or a cancel may have just
    // committed), as a cancel does (CancelRepository). The status read under the lock is the one reported, retried
    // or not (suspended for a runnable row with a suspension); no row comes back for a missing instance, and no queue
    // for one that is neither failed nor suspended, of which nothing is written.
    public static final String RETRY_FAILED = """
            /* durable: retry failed */
            WITH target AS (
                SELECT id, status, attempt, suspension FROM {schema}.durable_instance
                WHERE id = :id
                FOR NO KEY UPDATE
            ), retried AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', attempt = CASE WHEN t.status = 'failed' THEN 0 ELSE d.attempt END,
                    eligible_at = now(), suspension = NULL, lease_token = NULL, updated_at = now(),
                    trace_context = coalesce(CAST(:trace AS text), d.trace_context)
                FROM target t
                WHERE d.id = :id AND d.id = t.id
                  AND (t.status = 'failed' OR (t.status = 'runnable' AND t.suspension IS NOT NULL))
                RETURNING d.id, d.queue, d.parent_id, d.step, t.attempt, t.status AS was
            ), parent AS (
                UPDATE {schema}.durable_instance p
                SET children_ended = p.children_ended - 1
                FROM retried r
                WHERE p.id = r.parent_id AND r.was = 'failed'
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node)
                SELECT id, step, CASE WHEN was = 'failed' THEN 'retry_failed' ELSE 'retry_suspended' END, 'runnable',
                       attempt, :node
                FROM retried
                WHERE CAST(:history AS boolean)
            )
            SELECT CASE WHEN t.suspension IS NOT NULL AND t.status = 'runnable' THEN 'suspended'
                        ELSE t.status::text END AS status,
                   r.queue
            FROM target t LEFT JOIN retried r ON r.id = t.id
            """;

    // An operator's rerun of an ended instance (docs/DESIGN.md, "Operator repair"): runnable again in place at :step,
    // attempt 0, its state replaced unless :state is null, no result, error, wait or lease left. Locked by id and
    // judged as the lock left it, as RETRY_FAILED; a child that runs again is no longer ended for its parent. The
    // history's entry keeps the step it had ended at, the chosen one as its next step, and the operator in its error.
    public static final String RERUN = """
            /* durable: rerun */
            WITH target AS (
                SELECT id, status, step, attempt, suspension FROM {schema}.durable_instance
                WHERE id = :id
                FOR NO KEY UPDATE
            ), rerun AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', step = :step, state = coalesce(CAST(:state AS jsonb), d.state),
                    result = NULL, attempt = 0, eligible_at = now(), last_error = NULL, suspension = NULL,
                    awaits = NULL, awaits_set = NULL, deadline = NULL, awaits_children = NULL, lease_owner = NULL,
                    lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM target t
                WHERE d.id = :id AND d.id = t.id AND t.status IN ('done', 'failed', 'cancelled')
                RETURNING d.id, d.queue, d.parent_id, t.step AS ended_at, t.attempt
            ), parent AS (
                UPDATE {schema}.durable_instance p
                SET children_ended = p.children_ended - 1
                FROM rerun r
                WHERE p.id = r.parent_id
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, next_step, status, attempt, node, error)
                SELECT id, ended_at, 'rerun', :step, 'runnable', attempt, :node, :reason
                FROM rerun
                WHERE CAST(:history AS boolean)
            )
            SELECT CASE WHEN t.suspension IS NOT NULL AND t.status = 'runnable' THEN 'suspended'
                        ELSE t.status::text END AS status,
                   r.queue
            FROM target t LEFT JOIN rerun r ON r.id = t.id
            """;

    // A bulk retry of the failed instances among :id, which the caller locked (SearchRepository.lockPage); their
    // parents count them as ended no more, and their history records the retry, as for one (RETRY_FAILED). One that
    // would take a unique key another instance holds now is skipped, not refused: of several failed instances sharing
    // a key, only the latest is retried, and none while another holds the key (an instance whose scope includes
    // failed holds its own key, hence h.id <> d.id). A start taking the key between this statement's snapshot and its
    // write still collides on the unique index; the caller reports that.
    // The suspended instances among :id are resumed, as by RETRY_FAILED: they hold their key (a suspended row is
    // runnable), so none is skipped, and no parent counts them.
    public static final String RETRY_FAILED_PAGE = """
            /* durable: retry failed page */
            WITH target AS (
                SELECT id, status, attempt FROM {schema}.durable_instance
                WHERE id = ANY (:id::bigint[])
                  AND (status = 'failed' OR (status = 'runnable' AND suspension IS NOT NULL))
            ), retried AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', attempt = CASE WHEN t.status = 'failed' THEN 0 ELSE d.attempt END,
                    eligible_at = now(), suspension = NULL, lease_token = NULL, updated_at = now()
                FROM target t
                WHERE d.id = ANY (:id::bigint[]) AND d.id = t.id
                  AND (t.status = 'runnable'
                       OR d.unique_key IS NULL
                       OR (d.id = (SELECT max(o.id) FROM {schema}.durable_instance o
                                   WHERE o.id = ANY (:id::bigint[]) AND o.status = 'failed'
                                     AND o.unique_key = d.unique_key)
                           AND NOT EXISTS (SELECT 1 FROM {schema}.durable_instance h
                                           WHERE h.unique_guard = d.unique_key AND h.id <> d.id)))
                RETURNING d.id, d.queue, d.parent_id, d.step, d.attempt, t.status AS was
            ), parent AS (
                UPDATE {schema}.durable_instance p
                SET children_ended = p.children_ended - c.n
                FROM (SELECT parent_id, count(*)::int AS n FROM retried WHERE parent_id IS NOT NULL AND was = 'failed'
                      GROUP BY parent_id) c
                WHERE p.id = c.parent_id
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node)
                SELECT id, step, CASE WHEN was = 'failed' THEN 'retry_failed' ELSE 'retry_suspended' END, 'runnable',
                       attempt, :node
                FROM retried
                WHERE CAST(:history AS boolean)
            )
            SELECT id, queue FROM retried
            """;

    private final StatementPlanning planning;
    private final History history;
    private final String findSql;
    private final String childrenSql;
    private final String historySql;
    private final String countSql;
    private final String rerunSql;
    private final String summarizeSql;
    private final String countLiveSql;
    private final String retryFailedSql;
    private final String retryFailedPageSql;

    public QueryRepository(StatementPlanning planning, History history) {
        this.planning = planning;
        this.history = history;
        this.findSql = planning.qualify(FIND);
        this.childrenSql = planning.qualify(CHILDREN);
        this.historySql = planning.qualify(HISTORY);
        this.countSql = planning.qualify(COUNT);
        this.rerunSql = planning.qualify(RERUN);
        this.summarizeSql = planning.qualify(SUMMARIZE);
        this.countLiveSql = planning.qualify(COUNT_LIVE);
        this.retryFailedSql = planning.qualify(RETRY_FAILED);
        this.retryFailedPageSql = planning.qualify(RETRY_FAILED_PAGE);
    }

    /** The instance {@code id}, whose state and result read with {@code codec}. */
    Optional<DurableInstance> find(long id, JsonCodec codec) {
        return planning.ordinary().sql(findSql).param("id", id).query((rs, i) -> InstanceRow.read(rs, codec))
                .optional();
    }

    /** The children of {@code parentId} in id order, whose states and results read with {@code codec}. */
    public List<DurableInstance> children(long parentId, JsonCodec codec) {
        return children(parentId, 0, Long.MAX_VALUE, codec);
    }

    /**
     * Up to {@code limit} children of {@code parentId} after {@code afterId}, in id order.
     *
     * @throws IllegalArgumentException for a limit out of range
     */
    List<DurableInstance> children(long parentId, long afterId, int limit, JsonCodec codec) {
        return children(parentId, afterId, (long) page("children", limit), codec);
    }

    private List<DurableInstance> children(long parentId, long afterId, long limit, JsonCodec codec) {
        return planning.ordinary().sql(childrenSql).param("parentId", parentId).param("afterId", afterId)
                .param("limit", limit).query((rs, i) -> InstanceRow.read(rs, codec)).list();
    }

    /** A page's limit, checked: 1 to {@link InstanceQuery#MAX_LIMIT}. */
    private static int page(String what, int limit) {
        if (limit < 1 || limit > InstanceQuery.MAX_LIMIT) {
            throw new IllegalArgumentException("A " + what + " page holds 1 to " + InstanceQuery.MAX_LIMIT
                    + " entries, not " + limit);
        }
        return limit;
    }

    /**
     * Up to {@code limit} history entries of {@code instanceId} after {@code afterId}, oldest first.
     *
     * @throws IllegalArgumentException for a limit out of range
     */
    List<HistoryEntry> history(long instanceId, long afterId, int limit) {
        return planning.ordinary().sql(historySql)
                .param("instanceId", instanceId)
                .param("afterId", afterId)
                .param("limit", page("history", limit))
                .query((rs, i) -> {
                    long duration = rs.getLong("duration_ms");
                    Duration took = rs.wasNull() ? null : Duration.ofMillis(duration);
                    Array signals = rs.getArray("signals");
                    String patch = rs.getString("patch");
                    String upcastPatch = rs.getString("upcast_patch");
                    return new HistoryEntry(rs.getLong("id"), rs.getLong("instance_id"), rs.getString("step"),
                            HistoryEntry.Event.fromLabel(rs.getString("event")), rs.getString("next_step"),
                            InstanceStatus.fromLabel(rs.getString("status")), rs.getInt("attempt"),
                            rs.getString("node"), rs.getObject("lease_token", Long.class),
                            rs.getObject("at", OffsetDateTime.class).toInstant(), took,
                            rs.getString("error"), signals == null ? List.of() : List.of((Long[]) signals.getArray()),
                            patch == null ? null : StatePatch.parse(patch),
                            upcastPatch == null ? null : StatePatch.parse(upcastPatch));
                })
                .list();
    }

    /** Instances per queue and status. */
    Map<String, Map<InstanceStatus, Long>> count() {
        Map<String, Map<InstanceStatus, Long>> counts = new TreeMap<>();
        planning.ordinary().sql(countSql).query(rs -> {
            counts.computeIfAbsent(rs.getString("queue"), queue -> new TreeMap<>())
                    .put(InstanceStatus.fromLabel(rs.getString("status")), rs.getLong("n"));
        });
        return counts;
    }

    /** Per queue: counts by status, oldest runnable age, expired leases. Reads the whole table. */
    List<QueueSummary> summarize() {
        return summaries(summarizeSql, EnumSet.allOf(InstanceStatus.class));
    }

    private List<QueueSummary> summaries(String sql, Set<InstanceStatus> counted) {
        return planning.ordinary().sql(sql).query((rs, i) -> {
            Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
            for (InstanceStatus status : counted) {
                counts.put(status, rs.getLong(status.label()));
            }
            double oldest = rs.getDouble("oldest_runnable_seconds");
            Duration age = rs.wasNull() ? null : Duration.ofNanos((long) (oldest * 1e9));
            return new QueueSummary(rs.getString("queue"), counts, age, rs.getLong("expired_leases"));
        }).list();
    }

    /**
     * As {@link #summarize()} but without the done and cancelled counts: {@link #countLive()} summed per queue, so it
     * reads only indexes.
     */
    List<QueueSummary> summarizeLive() {
        InstanceCounts live = countLive();
        List<QueueSummary> summaries = new ArrayList<>();
        for (String queue : live.queues()) {
            InstanceCounts ofQueue = live.queue(queue);
            Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
            for (InstanceStatus status : InstanceStatus.values()) {
                if (!status.isTerminal() || status == InstanceStatus.FAILED) {
                    counts.put(status, ofQueue.count(status));
                }
            }
            summaries.add(new QueueSummary(queue, counts, ofQueue.oldestReadyAge(), ofQueue.expiredLeases()));
        }
        return summaries;
    }

    /**
     * The unfinished and failed instances per queue, machine, version and reason, in one statement that reads only
     * indexes (docs/DESIGN.md, "Counting instances").
     */
    InstanceCounts countLive() {
        Map<List<Object>, Map<WaitReason, Long>> counts = new LinkedHashMap<>();
        Map<List<Object>, Duration> oldest = new HashMap<>();
        Map<List<Object>, Long> expired = new HashMap<>();
        planning.ordinary().sql(countLiveSql).query(rs -> {
            List<Object> group = List.of(rs.getString("queue"), rs.getString("machine"), rs.getInt("machine_version"));
            counts.computeIfAbsent(group, key -> new EnumMap<>(WaitReason.class))
                    .merge(WaitReason.fromLabel(rs.getString("reason")), rs.getLong("n"), Long::sum);
            double seconds = rs.getDouble("oldest_ready_seconds");
            if (!rs.wasNull()) {
                oldest.merge(group, Duration.ofNanos((long) (seconds * 1e9)), (a, b) -> a.compareTo(b) >= 0 ? a : b);
            }
            expired.merge(group, rs.getLong("expired_leases"), Long::sum);
        });
        List<InstanceCounts.Group> groups = new ArrayList<>();
        counts.forEach((group, byReason) -> groups.add(new InstanceCounts.Group((String) group.get(0),
                (String) group.get(1), (Integer) group.get(2), byReason, oldest.get(group),
                expired.getOrDefault(group, 0L))));
        return new InstanceCounts(groups);
    }

    /**
     * What an operator's retry of one instance did.
     *
     * @param result what the caller is answered
     * @param queue  the queue the instance runs on again, or {@code null} when the retry was refused
     */
    record Retried(RetryResult result, @Nullable String queue) {
    }

    /**
     * Makes a failed or suspended instance runnable again; refused, writing nothing, if it is missing or neither.
     *
     * @throws org.springframework.dao.DuplicateKeyException if another instance holds its unique key now (nothing is
     *                                                       written)
     */
    Retried retryFailed(long id, @Nullable String trace) {
        return planning.ordinary().sql(retryFailedSql).param("id", id).param("history", history.recorded())
                .param("trace", trace)
                .param("node", history.node())
                .query((rs, i) -> {
                    InstanceStatus before = InstanceStatus.fromLabel(rs.getString("status"));
                    String queue = rs.getString("queue");
                    RetryResult.Retry outcome = queue == null ? RetryResult.Retry.REFUSED_NOT_FAILED
                            : before == InstanceStatus.SUSPENDED ? RetryResult.Retry.RESUMED
                            : RetryResult.Retry.RETRIED;
                    return new Retried(new RetryResult(id, outcome, before), queue);
                })
                .optional()
                .orElseGet(() -> new Retried(
                        new RetryResult(id, RetryResult.Retry.REFUSED_UNKNOWN_INSTANCE, null), null));
    }

    /**
     * Runs an ended instance again from {@code step}, with {@code stateJson} unless null; refused, writing nothing, if
     * it is missing or has not ended. The queue is null unless it was rerun.
     *
     * @throws org.springframework.dao.DuplicateKeyException if another instance holds its unique key now
     */
    Rerun rerun(long id, String step, @Nullable String stateJson, String reason) {
        return planning.ordinary().sql(rerunSql).param("id", id).param("step", step).param("state", stateJson)
                .param("reason", reason).param("history", history.recorded()).param("node", history.node())
                .query((rs, i) -> {
                    InstanceStatus before = InstanceStatus.fromLabel(rs.getString("status"));
                    String queue = rs.getString("queue");
                    return new Rerun(new RerunResult(id, queue == null ? RerunResult.Rerun.REFUSED_NOT_ENDED
                            : RerunResult.Rerun.RERUN, before), queue);
                })
                .optional()
                .orElseGet(() -> new Rerun(new RerunResult(id, RerunResult.Rerun.REFUSED_UNKNOWN_INSTANCE, null),
                        null));
    }

    record Rerun(RerunResult result, @Nullable String queue) {
    }

    /**
     * Makes the failed instances among {@code ids} runnable again, but for those whose unique key is held by another
     * instance (or by a later failed one of {@code ids}); the queue of each retried one, by id. Run it in the
     * transaction that locked them.
     *
     * @throws org.springframework.dao.DuplicateKeyException if a start took one of their keys meanwhile
     */
    Map<Long, String> retryFailed(List<Long> ids) {
        Map<Long, String> retried = new TreeMap<>();
        planning.ordinary().sql(retryFailedPageSql)
                .param("id", new SqlArrayValue("int8", ids.toArray()))
                .param("history", history.recorded())
                .param("node", history.node())
                .query(rs -> {
                    retried.put(rs.getLong("id"), rs.getString("queue"));
                });
        return retried;
    }
}
