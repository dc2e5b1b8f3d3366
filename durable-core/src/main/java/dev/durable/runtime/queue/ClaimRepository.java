package dev.durable.runtime.queue;

import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.jdbc.StatementVariants;
import dev.durable.runtime.step.Claim;
import dev.durable.runtime.step.ClaimedStep;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The SQL of a claim's life apart from its outcome: the pick that makes claims ({@link QueueOwner}), the heartbeat
 * that extends them ({@code Heartbeat}), and the statements that end them without an outcome — the reap and the
 * release of earlier starts ({@code Reaper}), and the release at shutdown and the hand-back after an Error
 * ({@link StepExecutor}). Every concurrency decision is made by PostgreSQL ({@code SKIP LOCKED}, fenced
 * {@code UPDATE ... WHERE lease_token = ?}, the partition index) and read back from {@code RETURNING}; time is the
 * database's {@code now()}.
 *
 * <p>Each statement runs alone on an engine thread, which carries no transaction, and commits on its own. All go
 * through {@link StatementPlanning#hot()}. The statements are visible (to the runtime only: this package is
 * internal) so that {@code QueryPlanTest} can check their plans.
 */
public final class ClaimRepository {

    // One statement claims a batch and reads everything its steps need, inbox included: the claimed row, and its
    // unconsumed signals aggregated in id order by a LATERAL subquery (TransitionRepository.APPLY_CONTINUE returns
    // the same columns, read by ClaimedStep.read).
    // - FOR NO KEY UPDATE, not FOR UPDATE, so a row that a concurrent signal insert holds a foreign-key KEY SHARE
    //   lock on is not skipped (docs/DESIGN.md, pitfall P6).
    // - One queue per statement (queue = :queue), so the pick index keeps its order (docs/DESIGN.md, pitfall P7).
    // - Version-aware: only (machine, version) pairs this node runs: those it registers, and the older versions their
    //   highest version upcasts (docs/DESIGN.md, "Upcasting").
    // - eligible_at <= now() also leaves out suspended rows, which wait at 'infinity', past the end of the walk
    //   (docs/DESIGN.md, "Suspension").
    // - Partition keys: a key with an executing row is skipped (a probe of durable_instance_partition), and at
    //   most one row per key is taken per batch. A concurrent pick by another node of another row of the same key
    //   fails on the partial unique index, which aborts only this pick; the caller retries.
    // - Two limits: candidate's {limit} is written into the text (a bucket of LiteralLimits, at least the rows
    //   wanted) so that PostgreSQL can cache a generic plan; wanted binds the exact number. A CTE is read only as
    //   far as its reader asks, so candidate locks no more rows than wanted takes (plus those it skips).
    // - The variant pick one claims one row by its id, if a pick would: a test kit's run of one step (EngineDriver;
    //   docs/DESIGN.md, "Time in tests"). Production picks with the variant pick.
    // - The variant pick limited is the pick of a queue with cluster-wide limits (docs/DESIGN.md, "Cluster-wide
    //   limits"). It runs in the transaction in which LOCK_LIMIT locked the queue's limit row, so every limited pick of
    //   the queue runs after the last one committed, and reads, in a snapshot taken after the lock, the rows it claimed.
    //   room is how many rows it may claim: at most the rows wanted, the limit's free room (:concurrency minus the
    //   queue's executing rows, counted afresh: a claim a crashed node held frees itself when the reaper returns it)
    //   and the whole tokens of the bucket, refilled on the database's clock; less one for each node held back by the
    //   limit before this one (waiter: those that waited longest go first, so the node whose own claims ended cannot
    //   take all the room they free). spent takes a token per claimed row; queued and served keep this node's place
    //   among the waiters. A claimed row's updated_at is the time the bucket counted its start. The rows come with
    //   the room, the tokens and the executing count; with none claimed, one row of them alone (its id is null).
    //   least() ignores what is null: a limit that is not set.
    static final String PICKS = """
            /* durable: pick */ -- in: pick
            /* durable: pick one */ -- in: pick one
            /* durable: pick limited */ -- in: pick limited
            WITH candidate AS ( -- in: pick, pick one
            WITH clock AS MATERIALIZED ( -- in: pick limited
                SELECT clock_timestamp() AS t -- in: pick limited
            ), waiter AS MATERIALIZED ( -- in: pick limited
                SELECT w.node, w.since FROM {schema}.durable_queue_limit_waiter w, clock -- in: pick limited
                WHERE w.queue = :queue AND w.seen_at > clock.t - :waiterMs * interval '1 millisecond' -- in: pick limited
            ), bucket AS MATERIALIZED ( -- in: pick limited
                SELECT CASE WHEN :starts > 0 THEN least(:starts::float8, -- in: pick limited
                           l.tokens + greatest(0, extract(epoch FROM clock.t - l.refilled_at) * 1000) * :perMilli) -- in: pick limited
                       END AS tokens, -- in: pick limited
                       CASE WHEN :concurrency > 0 THEN (SELECT count(*) FROM {schema}.durable_instance e -- in: pick limited
                           WHERE e.queue = :queue AND e.status = 'executing') END AS executing -- in: pick limited
                FROM {schema}.durable_queue_limit l, clock -- in: pick limited
                WHERE l.queue = :queue -- in: pick limited
            ), room AS MATERIALIZED ( -- in: pick limited
                SELECT b.tokens, b.executing, -- in: pick limited
                       greatest(0, least(:wanted, :concurrency - b.executing, floor(b.tokens)) - ( -- in: pick limited
                           SELECT count(*) FROM waiter WHERE waiter.node <> :owner AND waiter.since < coalesce( -- in: pick limited
                               (SELECT since FROM waiter WHERE waiter.node = :owner), 'infinity')))::int AS n -- in: pick limited
                FROM bucket b -- in: pick limited
            ), candidate AS ( -- in: pick limited
                SELECT i.id, i.partition_key, i.priority, i.eligible_at
                FROM {schema}.durable_instance i
                WHERE i.queue = :queue
                  AND i.id = :id -- in: pick one
                  AND i.status = 'runnable'
                  AND i.eligible_at <= now()
                  AND (i.machine, i.machine_version) IN (
                      SELECT * FROM unnest(:machine::text[], :version::int[]))
                  AND (i.partition_key IS NULL OR NOT EXISTS (
                      SELECT 1 FROM {schema}.durable_instance busy
                      WHERE busy.partition_key = i.partition_key AND busy.status = 'executing'))
                ORDER BY i.priority, i.eligible_at
                LIMIT {limit}
                FOR NO KEY UPDATE OF i SKIP LOCKED
            ), wanted AS (
                SELECT * FROM candidate LIMIT :wanted -- in: pick, pick one
                SELECT * FROM candidate LIMIT coalesce((SELECT n FROM room), 0) -- in: pick limited
            ), chosen AS (
                SELECT id FROM (
                    SELECT id, partition_key,
                           row_number() OVER (PARTITION BY partition_key ORDER BY priority, eligible_at, id) AS nth
                    FROM wanted) ranked
                WHERE partition_key IS NULL OR nth = 1
            ), claimed AS (
                UPDATE {schema}.durable_instance d
                SET status = 'executing',
                    lease_owner = :owner,
                    lease_token = nextval('{schema}.durable_lease_token_seq'),
                    lease_expires_at = now() + :leaseMs * interval '1 millisecond',
                    updated_at = now() -- in: pick, pick one
                    updated_at = (SELECT t FROM clock) -- in: pick limited
                FROM chosen
                WHERE d.id = chosen.id
                RETURNING d.id, d.machine, d.machine_version, d.step, d.state, d.awaits, d.awaits_set,
                          d.deadline <= now() AS deadline_passed, d.attempt, d.lease_token, d.queue, d.partition_key,
                          d.parent_id, d.children_started, d.children_ended, d.awaits_children,
                          d.priority, d.eligible_at, d.trace_context
            ), spent AS ( -- in: pick limited
                UPDATE {schema}.durable_queue_limit l -- in: pick limited
                SET tokens = room.tokens - (SELECT count(*) FROM claimed), refilled_at = clock.t -- in: pick limited
                FROM room, clock -- in: pick limited
                WHERE l.queue = :queue AND room.tokens IS NOT NULL -- in: pick limited
            ), held AS MATERIALIZED ( -- in: pick limited
                SELECT room.n < :wanted AND (SELECT count(*) FROM claimed) >= room.n AS back, -- in: pick limited
                       EXISTS (SELECT 1 FROM claimed) AS served -- in: pick limited
                FROM room -- in: pick limited
            ), queued AS ( -- in: pick limited
                INSERT INTO {schema}.durable_queue_limit_waiter AS w (queue, node, since, seen_at) -- in: pick limited
                SELECT :queue, :owner, clock.t, clock.t FROM held, clock -- in: pick limited
                WHERE held.back -- in: pick limited
                ON CONFLICT (queue, node) DO UPDATE SET -- in: pick limited
                    since = CASE WHEN (SELECT served FROM held) -- in: pick limited
                                   OR w.seen_at <= excluded.seen_at - :waiterMs * interval '1 millisecond' -- in: pick limited
                                 THEN excluded.since ELSE w.since END, -- in: pick limited
                    seen_at = excluded.seen_at -- in: pick limited
            ), served AS ( -- in: pick limited
                DELETE FROM {schema}.durable_queue_limit_waiter w -- in: pick limited
                USING held, clock -- in: pick limited
                WHERE w.queue = :queue AND CASE WHEN w.node = :owner THEN NOT held.back -- in: pick limited
                    ELSE w.seen_at < clock.t - 10 * :waiterMs * interval '1 millisecond' END -- in: pick limited
            )
            SELECT c.id, c.machine, c.machine_version, c.step, c.state::text AS state, c.awaits, c.awaits_set,
                   c.deadline_passed, c.attempt, c.lease_token, c.queue, c.partition_key,
                   c.parent_id, c.children_started, c.children_ended, c.awaits_children, c.trace_context,
                   inbox.ids AS signal_ids, inbox.names AS signal_names, inbox.payloads AS signal_payloads,
                   inbox.dedup_keys AS signal_dedup_keys, inbox.created AS signal_created -- in: pick, pick one
                   inbox.dedup_keys AS signal_dedup_keys, inbox.created AS signal_created, -- in: pick limited
                   room.n AS limit_room, room.tokens AS limit_tokens, room.executing AS limit_executing -- in: pick limited
            FROM claimed c -- in: pick, pick one
            FROM room LEFT JOIN claimed c ON true -- in: pick limited
            LEFT JOIN LATERAL (
                SELECT array_agg(s.id ORDER BY s.id) AS ids,
                       array_agg(s.name ORDER BY s.id) AS names,
                       array_agg(s.payload::text ORDER BY s.id) AS payloads,
                       array_agg(s.dedup_key ORDER BY s.id) AS dedup_keys,
                       array_agg(s.created_at ORDER BY s.id) AS created
                FROM {schema}.durable_signal s
                WHERE s.instance_id = c.id AND s.consumed_at IS NULL) inbox ON true
            ORDER BY c.priority, c.eligible_at
            """;

    public static final String PICK = StatementVariants.render(PICKS, "pick", "pick one", "pick limited").get("pick");
    public static final String PICK_ONE = StatementVariants.render(PICKS, "pick", "pick one", "pick limited")
            .get("pick one");
    public static final String PICK_LIMITED = StatementVariants.render(PICKS, "pick", "pick one", "pick limited")
            .get("pick limited");

    // One statement per tick for all of this node's claims. A node may hold two claims on one row at once (its own
    // stale claim, still running after the row was reaped, and its new one), so claims are told apart by token.
    // Rows are selected in id order with SKIP LOCKED before they are updated, like the reaper, so the two never
    // deadlock (docs/DESIGN.md, pitfall P4). A skipped row is merely busy (an outcome or a signal holds it) and is
    // extended next tick.
    public static final String HEARTBEAT = """
            /* durable: heartbeat */
            WITH mine AS (
                SELECT i.id
                FROM {schema}.durable_instance i
                JOIN unnest(:id::bigint[], :token::bigint[]) AS o(id, token)
                  ON i.id = o.id AND i.lease_token = o.token
                WHERE i.id = ANY (:id::bigint[]) AND i.status = 'executing'
                ORDER BY i.id
                FOR NO KEY UPDATE OF i SKIP LOCKED
            )
            UPDATE {schema}.durable_instance d
            SET lease_expires_at = now() + :leaseMs * interval '1 millisecond'
            FROM mine
            WHERE d.id = mine.id
            RETURNING d.id, d.lease_token
            """;

    // The claims the heartbeat did not extend that are still held (their rows were merely locked): the others are
    // gone. Also the check of claims that waited for a slot past the bound, before their steps start. Fenced like
    // every write that ends a claim (docs/DESIGN.md, "Fencing"), with the status compared as text so that each row is
    // reached through the primary key (TransitionRepository says why; pitfall P19).
    public static final String STILL_CLAIMED = """
            /* durable: still claimed */
            SELECT d.id, d.lease_token
            FROM {schema}.durable_instance d, unnest(:id::bigint[], :token::bigint[]) AS o(id, token)
            WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
            """;

    // Crash recovery: expired leases go back to runnable with attempt + 1; the error handler is not involved.
    // eligible_at is left alone (it is in the past): a reaped row keeps its place in pick order, also within its
    // partition key.
    // SKIP LOCKED lets reapers on several nodes run at once without double-counting; the id order is that of
    // pitfall P4 (docs/DESIGN.md).
    public static final String REAP = """
            /* durable: reap */
            WITH expired AS (
                SELECT id, lease_token FROM {schema}.durable_instance
                WHERE status = 'executing' AND lease_expires_at < now()
                ORDER BY id
                LIMIT :limit
                FOR NO KEY UPDATE SKIP LOCKED
            ), reaped AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', attempt = d.attempt + 1,
                    last_error = 'lease of ' || coalesce(d.lease_owner, '?') || ' expired at step ' || d.step,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM expired
                WHERE d.id = expired.id
                RETURNING d.id, d.queue, d.step, d.attempt, d.last_error, expired.lease_token
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node, lease_token,
                                                      error)
                SELECT id, step, 'reap', 'runnable', attempt - 1, :node, lease_token, last_error
                FROM reaped
                WHERE CAST(:history AS boolean)
            )
            SELECT id, queue FROM reaped
            """;

    // A node that restarts releases the claims of its earlier starts (same stable name, other suffix) as soon as
    // their heartbeats have stopped for a while, instead of leaving them for a whole lease (docs/DESIGN.md,
    // pitfall P9). A claim's last heartbeat was at lease_expires_at - lease; it is stale when older than
    // :staleAfter.
    public static final String RELEASE_EARLIER_STARTS = """
            /* durable: release earlier starts */
            WITH stale AS (
                SELECT id, lease_token FROM {schema}.durable_instance
                WHERE status = 'executing'
                  AND starts_with(lease_owner, :ownerPrefix) AND lease_owner <> :owner
                  AND lease_expires_at < now() + :staleBeforeExpiryMs * interval '1 millisecond'
                ORDER BY id
                FOR NO KEY UPDATE SKIP LOCKED
            ), released AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', attempt = d.attempt + 1,
                    last_error = 'claim of ' || coalesce(d.lease_owner, '?') || ' released by a later start at step '
                                 || d.step,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM stale
                WHERE d.id = stale.id
                RETURNING d.id, d.queue, d.step, d.attempt, d.last_error, stale.lease_token
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node, lease_token,
                                                      error)
                SELECT id, step, 'release', 'runnable', attempt - 1, :node, lease_token, last_error
                FROM released
                WHERE CAST(:history AS boolean)
            )
            SELECT id, queue FROM released
            """;

    // Graceful shutdown: unfinished claims go back to runnable at once, attempt unchanged (the step did not fail,
    // the node left), fenced like an outcome.
    static final String RELEASE = """
            /* durable: release */
            WITH o AS (SELECT * FROM unnest(:id::bigint[], :token::bigint[]) AS o(id, token)
            ), released AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable',
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id, d.step, d.attempt, o.token
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node, lease_token,
                                                      error)
                SELECT id, step, 'release', 'runnable', attempt, :node, token, 'released at shutdown'
                FROM released
                WHERE CAST(:history AS boolean)
            )
            SELECT id FROM released
            """;

    // A step that died of an Error is handed back at once, as the reaper would hand back a crashed step (attempt + 1,
    // no error handler), but without waiting for its lease to expire. Fenced like every write that ends a claim. It
    // becomes eligible again after 2^attempt seconds (at most a minute), so an Error that strikes every run (a stack
    // overflow, say) retries slowly instead of spinning through the queue.
    public static final String RETURN_CRASHED = """
            /* durable: return crashed */
            WITH o AS (SELECT * FROM unnest(:id::bigint[], :token::bigint[]) AS o(id, token)
            ), returned AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', attempt = d.attempt + 1, last_error = :error,
                    eligible_at = now() + make_interval(secs => least(power(2, d.attempt), 60)),
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id, d.step, d.attempt, o.token
            ), recorded AS (
                INSERT INTO {schema}.durable_history (instance_id, step, event, status, attempt, node, lease_token,
                                                      error)
                SELECT id, step, 'crash', 'runnable', attempt - 1, :node, token, :error
                FROM returned
                WHERE CAST(:history AS boolean)
            )
            SELECT id FROM returned
            """;

    // When the next runnable row of a queue falls due (NULL when none waits): a durable timer, a retry's back-off, a
    // delayed start. The pick index is ordered by priority first, so the earliest eligible_at is the least of each
    // priority's first entry past now(): the distinct priorities are walked with one index probe each (a loose index
    // scan), then each gives its first future row with one more. A handful of probes, however many rows wait.
    // Suspended rows wait at 'infinity' (docs/DESIGN.md, "Suspension"): they never fall due, and an infinite distance
    // cannot be computed.
    public static final String UNTIL_NEXT_ELIGIBLE = """
            /* durable: next eligible */
            WITH RECURSIVE priorities AS (
                (SELECT i.priority FROM {schema}.durable_instance i
                 WHERE i.queue = :queue AND i.status = 'runnable'
                 ORDER BY i.priority LIMIT 1)
                UNION ALL
                SELECT (SELECT i.priority FROM {schema}.durable_instance i
                        WHERE i.queue = :queue AND i.status = 'runnable' AND i.priority > p.priority
                        ORDER BY i.priority LIMIT 1)
                FROM priorities p
                WHERE p.priority IS NOT NULL
            )
            SELECT (extract(epoch FROM min(next.eligible_at) - now()) * 1000)::bigint
            FROM priorities p
            CROSS JOIN LATERAL (
                SELECT i.eligible_at FROM {schema}.durable_instance i
                WHERE i.queue = :queue AND i.status = 'runnable' AND i.priority = p.priority
                  AND i.eligible_at > now() AND i.eligible_at < 'infinity'
                ORDER BY i.eligible_at LIMIT 1) next
            WHERE p.priority IS NOT NULL
            """;

    private final StatementPlanning planning;
    private final History history;
    private final LiteralLimits pickSql;
    private final LiteralLimits pickOneSql;
    private final LimitRepository limits;
    private final String untilNextEligibleSql;
    private final String heartbeatSql;
    private final String stillClaimedSql;
    private final String reapSql;
    private final String releaseEarlierStartsSql;
    private final String releaseSql;
    private final String returnCrashedSql;

    public ClaimRepository(StatementPlanning planning, History history) {
        this.planning = planning;
        this.history = history;
        this.pickSql = new LiteralLimits(planning.qualify(PICK));
        this.pickOneSql = new LiteralLimits(planning.qualify(PICK_ONE));
        this.limits = new LimitRepository(planning, this);
        this.untilNextEligibleSql = planning.qualify(UNTIL_NEXT_ELIGIBLE);
        this.heartbeatSql = planning.qualify(HEARTBEAT);
        this.stillClaimedSql = planning.qualify(STILL_CLAIMED);
        this.reapSql = planning.qualify(REAP);
        this.releaseEarlierStartsSql = planning.qualify(RELEASE_EARLIER_STARTS);
        this.releaseSql = planning.qualify(RELEASE);
        this.returnCrashedSql = planning.qualify(RETURN_CRASHED);
    }

    /** Milliseconds until the next runnable row of {@code queue} falls due; {@code null} if none waits. */
    public @Nullable Long millisUntilNextEligible(String queue) {
        return planning.hot().sql(untilNextEligibleSql).param("queue", queue).query(Long.class).list().get(0);
    }

    /**
     * Claims up to {@code limit} runnable rows of {@code queue} for {@code owner}, in one statement.
     *
     * @param machines the (machine, version) pairs this node runs on this queue
     * @throws org.springframework.dao.DuplicateKeyException when another node claimed a row of the same partition
     *         key at the same moment; nothing was claimed and the pick may simply be repeated
     */
    public List<ClaimedStep> pick(String queue, Map<String, List<Integer>> machines, int limit, String owner,
            Duration lease) {
        return pick(pickSql.with(LiteralLimits.bucket(limit)), queue, machines, limit, owner, lease)
                .query(ClaimedStep::read).list();
    }

    /** Claims runnable row {@code id} of {@code queue} for {@code owner} if it is due, as {@link #pick} would. */
    public List<ClaimedStep> pickOne(long id, String queue, Map<String, List<Integer>> machines, String owner,
            Duration lease) {
        return pick(pickOneSql.with(LiteralLimits.bucket(1)), queue, machines, 1, owner, lease).param("id", id)
                .query(ClaimedStep::read).list();
    }

    /** The statements of a queue's cluster-wide limits (docs/DESIGN.md, "Cluster-wide limits"). */
    public LimitRepository limits() {
        return limits;
    }

    /** A pick's text with its parameters bound: the pick's, and the limited pick's ({@link LimitRepository}). */
    JdbcClient.StatementSpec pick(String sql, String queue, Map<String, List<Integer>> machines,
            int limit, String owner, Duration lease) {
        List<Object> names = new ArrayList<>();
        List<Object> versions = new ArrayList<>();
        machines.forEach((name, machineVersions) -> machineVersions.forEach(v -> {
            names.add(name);
            versions.add(v);
        }));
        return planning.hot().sql(sql)
                .param("queue", queue)
                .param("machine", new SqlArrayValue("text", names.toArray()))
                .param("version", new SqlArrayValue("int4", versions.toArray()))
                .param("wanted", limit)
                .param("owner", owner)
                .param("leaseMs", lease.toMillis());
    }

    /**
     * Extends the leases of these claims in one statement.
     *
     * @return the claims whose lease is gone (reaped, released, or re-claimed): their steps should stop
     */
    public List<Claim> heartbeat(List<Claim> claims, Duration lease) {
        if (claims.isEmpty()) {
            return List.of();
        }
        Set<Claim> extended = new HashSet<>(onClaims(heartbeatSql, claims)
                .param("leaseMs", lease.toMillis())
                .query(ClaimRepository::claim)
                .list());
        if (extended.size() == claims.size()) {
            return List.of();
        }
        // Rarely reached: a claim not extended is either busy (skipped while locked) or gone. Ask which.
        List<Claim> missed = claims.stream().filter(claim -> !extended.contains(claim)).toList();
        Set<Claim> stillClaimed = stillClaimed(missed);
        return missed.stream().filter(claim -> !stillClaimed.contains(claim)).toList();
    }

    /**
     * Which of these claims still hold their rows (executing, with their token), in one statement that takes no lock:
     * a claim that waited for a slot is checked so before its step starts (docs/DESIGN.md, "Cancel").
     */
    public Set<Claim> stillClaimed(List<Claim> claims) {
        if (claims.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(onClaims(stillClaimedSql, claims)
                .query(ClaimRepository::claim)
                .list());
    }

    /** Returns up to {@code limit} expired claims to runnable with attempt + 1; the reaped ids by queue. */
    public Map<Long, String> reapExpired(int limit) {
        Map<Long, String> reaped = new LinkedHashMap<>();
        recording(planning.hot().sql(reapSql)).param("limit", limit).query(rs -> {
            reaped.put(rs.getLong("id"), rs.getString("queue"));
        });
        return reaped;
    }

    /**
     * Returns the claims of earlier starts of this node name whose heartbeat stopped more than {@code staleAfter}
     * ago to runnable with attempt + 1 (docs/DESIGN.md, pitfall P9).
     *
     * @param ownerPrefix the stable node name and separator every start of this node uses
     * @param owner       this start's node id, whose claims are left alone
     */
    public Map<Long, String> releaseEarlierStarts(String ownerPrefix, String owner, Duration lease,
            Duration staleAfter) {
        Map<Long, String> released = new LinkedHashMap<>();
        recording(planning.hot().sql(releaseEarlierStartsSql))
                .param("ownerPrefix", ownerPrefix)
                .param("owner", owner)
                .param("staleBeforeExpiryMs", lease.minus(staleAfter).toMillis())
                .query(rs -> {
                    released.put(rs.getLong("id"), rs.getString("queue"));
                });
        return released;
    }

    /** Releases claims back to runnable at once, attempt unchanged (graceful shutdown); the released ids. */
    public List<Long> release(List<Claim> claims) {
        if (claims.isEmpty()) {
            return List.of();
        }
        return onClaims(releaseSql, claims)
                .query(Long.class)
                .list();
    }

    /**
     * Hands a claim whose step died of an Error back to its queue at once: runnable, attempt + 1, {@code error} in
     * last_error. False when the claim was no longer held (reaped meanwhile).
     */
    public boolean returnCrashed(Claim claim, String error) {
        return !onClaims(returnCrashedSql, List.of(claim))
                .param("error", error)
                .query(Long.class)
                .list()
                .isEmpty();
    }

    /**
     * A hot statement with {@code claims} bound as its {@code :id} and {@code :token} arrays, recording history as
     * {@link #recording} says.
     */
    private JdbcClient.StatementSpec onClaims(String sql, List<Claim> claims) {
        return recording(planning.hot().sql(sql))
                .param("id", new SqlArrayValue("int8", claims.stream().map(Claim::id).toArray()))
                .param("token", new SqlArrayValue("int8", claims.stream().map(Claim::leaseToken).toArray()));
    }

    /**
     * {@code statement} with whether it records the claims it ends in the instances' history ({@code :history}) and
     * as which node ({@code :node}); statements that record nothing ignore both.
     */
    private JdbcClient.StatementSpec recording(JdbcClient.StatementSpec statement) {
        return statement.param("history", history.recorded()).param("node", history.node());
    }

    private static Claim claim(ResultSet rs, int rowNum) throws SQLException {
        return new Claim(rs.getLong("id"), rs.getLong("lease_token"));
    }
}
