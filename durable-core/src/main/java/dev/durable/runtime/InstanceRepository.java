package dev.durable.runtime;

import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.QueueSummary;
import dev.durable.StartResult;
import dev.durable.jdbc.DurableSchema;
import dev.durable.json.JsonCodec;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * All SQL of {@code durable_instance}: insert, pick, the fenced writes that end a step, heartbeat, reaper, release
 * and the read API. Every concurrency decision is made by PostgreSQL ({@code SKIP LOCKED}, fenced
 * {@code UPDATE ... WHERE lease_token = ?}, unique indexes) and read back from {@code RETURNING}; time is always the
 * database's {@code now()}.
 *
 * <p>Inserts join the caller's Spring transaction, if any. Engine writes run on engine threads, which never carry
 * one: a single statement commits on its own, several run in a transaction of their own.
 *
 * <p>The pitfalls that shape this class are cited where they apply (docs/DESIGN.md, "Known pitfalls"). The
 * hot-path statements are package-private so that {@code QueryPlanTest} can check their plans.
 */
final class InstanceRepository {

    // Concurrent batches sharing unique keys are inserted in key order (the caller sorts), so they take the unique
    // index's locks in one order and cannot deadlock (docs/DESIGN.md, pitfall P5).
    // Columns travel as arrays and are unnested, so a batch has 10 bind parameters whatever its size
    // (docs/DESIGN.md, pitfall P8).
    // The inserted rows come back in insertion order, which is the ORDER BY of the select.
    private static final String INSERT = """
            /* durable: insert */
            INSERT INTO {schema}.durable_instance
                (machine, machine_version, step, state, queue, priority, partition_key, eligible_at,
                 unique_key, unique_scope)
            SELECT r.machine, r.machine_version, r.step, r.state::jsonb, r.queue, r.priority::smallint,
                   r.partition_key, now() + r.delay_ms * interval '1 millisecond',
                   r.unique_key, r.unique_scope::{schema}.durable_status[]
            FROM unnest(:machine::text[], :version::int[], :step::text[], :state::text[], :queue::text[],
                        :priority::int[], :partitionKey::text[], :delayMs::bigint[], :uniqueKey::text[],
                        :uniqueScope::text[])
                 WITH ORDINALITY AS r(machine, machine_version, step, state, queue, priority, partition_key,
                                      delay_ms, unique_key, unique_scope, ord)
            ORDER BY r.ord
            ON CONFLICT (unique_guard) WHERE unique_guard IS NOT NULL DO NOTHING
            RETURNING id, unique_key
            """;

    private static final String FIND_UNIQUE_HOLDERS = """
            /* durable: find unique holders */
            SELECT unique_guard, id FROM {schema}.durable_instance WHERE unique_guard = ANY (:keys::text[])
            """;

    // What a step about to run needs, read by the statement that claims it (pick, continue): the claimed row as c,
    // and its unconsumed signals aggregated in id order by a LATERAL subquery named inbox over durable_signal s.
    private static final String CLAIMED_STEP = """
            c.id, c.machine, c.machine_version, c.step, c.state::text AS state, c.awaits, c.attempt,
                   c.lease_token, c.queue, c.partition_key,
                   inbox.ids AS signal_ids, inbox.names AS signal_names, inbox.payloads AS signal_payloads,
                   inbox.dedup_keys AS signal_dedup_keys, inbox.created AS signal_created""";

    private static final String INBOX = """
            array_agg(s.id ORDER BY s.id) AS ids,
                       array_agg(s.name ORDER BY s.id) AS names,
                       array_agg(s.payload::text ORDER BY s.id) AS payloads,
                       array_agg(s.dedup_key ORDER BY s.id) AS dedup_keys,
                       array_agg(s.created_at ORDER BY s.id) AS created""";

    // One statement claims a batch and reads everything its steps need, inbox included.
    // - FOR NO KEY UPDATE, not FOR UPDATE, so a row that a concurrent signal insert holds a foreign-key KEY SHARE
    //   lock on is not skipped (docs/DESIGN.md, pitfall P6).
    // - One queue per statement (queue = :queue), so the pick index keeps its order (docs/DESIGN.md, pitfall P7).
    // - Version-aware: only (machine, version) pairs this node has registered.
    // - Partition keys: a key with an executing row is skipped (a probe of durable_instance_partition), and at
    //   most one row per key is taken per batch. A concurrent pick by another node of another row of the same key
    //   fails on the partial unique index, which aborts only this pick; the caller retries.
    static final String PICK = """
            /* durable: pick */
            WITH candidate AS (
                SELECT i.id, i.partition_key, i.priority, i.eligible_at
                FROM {schema}.durable_instance i
                WHERE i.queue = :queue
                  AND i.status = 'runnable'
                  AND i.eligible_at <= now()
                  AND (i.machine, i.machine_version) IN (
                      SELECT * FROM unnest(:machine::text[], :version::int[]))
                  AND (i.partition_key IS NULL OR NOT EXISTS (
                      SELECT 1 FROM {schema}.durable_instance busy
                      WHERE busy.partition_key = i.partition_key AND busy.status = 'executing'))
                ORDER BY i.priority, i.eligible_at
                LIMIT :limit
                FOR NO KEY UPDATE OF i SKIP LOCKED
            ), chosen AS (
                SELECT id FROM (
                    SELECT id, partition_key,
                           row_number() OVER (PARTITION BY partition_key ORDER BY priority, eligible_at, id) AS nth
                    FROM candidate) ranked
                WHERE partition_key IS NULL OR nth = 1
            ), claimed AS (
                UPDATE {schema}.durable_instance d
                SET status = 'executing',
                    lease_owner = :owner,
                    lease_token = nextval('{schema}.durable_lease_token_seq'),
                    lease_expires_at = now() + :leaseMs * interval '1 millisecond',
                    updated_at = now()
                FROM chosen
                WHERE d.id = chosen.id
                RETURNING d.id, d.machine, d.machine_version, d.step, d.state, d.awaits, d.attempt, d.lease_token,
                          d.queue, d.partition_key, d.priority, d.eligible_at
            )
            SELECT {claimedStep}
            FROM claimed c
            LEFT JOIN LATERAL (
                SELECT {inbox}
                FROM {schema}.durable_signal s
                WHERE s.instance_id = c.id AND s.consumed_at IS NULL) inbox ON true
            ORDER BY c.priority, c.eligible_at
            """;

    /** Below this many rows by the statistics' estimate, hot statements are planned at every execution. */
    static final long SMALL_TABLE_ROWS = 10_000;

    static final String TABLE_SIZE_ESTIMATE = """
            /* durable: table size estimate */
            SELECT c.reltuples::bigint
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = :schema AND c.relname = 'durable_instance'
            """;

    // The fence of every write that ends a step: a per-claim token, not a node id, because a node can re-pick its
    // own reaped row (docs/DESIGN.md, "Fencing" and pitfall P3). A write that matches no row lost its lease and changes
    // nothing. The ids are also given as "= ANY", so that the planner reaches the rows through the primary key whatever
    // the batch size (a join with unnest alone can be planned as a hash join over a scan of the table).
    private static final String FENCE = """
            d.id = ANY (:id::bigint[]) AND d.id = o.id AND d.status = 'executing' AND d.lease_token = o.token""";

    // Consumption of the awaited signals a step was handed, once its next is applied (two CTEs that follow
    // "applied"): a signal with a dedup key becomes a tombstone (consumed_at set) so that a redelivery of it is
    // still deduplicated; one without is deleted. Driven by the bound ids, not by a subquery (docs/DESIGN.md,
    // pitfall P11).
    private static final String CONSUME = """
            kept AS (
                    UPDATE {schema}.durable_signal s SET consumed_at = now()
                    WHERE s.id = ANY (:consumedSignal::bigint[]) AND s.dedup_key IS NOT NULL
                      AND s.instance_id IN (SELECT id FROM applied)
                ), dropped AS (
                    DELETE FROM {schema}.durable_signal s
                    WHERE s.id = ANY (:consumedSignal::bigint[]) AND s.dedup_key IS NULL
                      AND s.instance_id IN (SELECT id FROM applied)
                )""";

    // next: attempt 0, runnable now, awaits cleared; consumes exactly the awaited signals handed to the step.
    // In this and the other outcomes, a NULL state (the step kept its state) leaves the stored one as it is.
    static final String APPLY_NEXT = """
            /* durable: next */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :step::text[], :state::text[])
                    AS o(id, token, step, state)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', step = o.step,
                    state = coalesce(o.state::jsonb, d.state),
                    attempt = 0, awaits = NULL, eligible_at = now(),
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE {fence}
                RETURNING d.id
            ), {consume}
            SELECT id FROM applied
            """;

    // next, keeping the claim (inline execution): like APPLY_NEXT but the row stays executing under the same token
    // with a fresh lease, and everything the next step needs comes back, the inbox as it is now minus the signals
    // this statement consumes (their delete is not visible to the statement's own snapshot).
    static final String APPLY_CONTINUE = """
            /* durable: continue */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :step::text[], :state::text[])
                    AS o(id, token, step, state)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET step = o.step,
                    state = coalesce(o.state::jsonb, d.state),
                    attempt = 0, awaits = NULL, eligible_at = now(),
                    lease_expires_at = now() + :leaseMs * interval '1 millisecond', updated_at = now()
                FROM o
                WHERE {fence}
                RETURNING d.id, d.machine, d.machine_version, d.step, d.state, d.awaits, d.attempt, d.lease_token,
                          d.queue, d.partition_key
            ), {consume}
            SELECT {claimedStep}
            FROM applied c
            LEFT JOIN LATERAL (
                SELECT {inbox}
                FROM {schema}.durable_signal s
                WHERE s.instance_id = c.id AND s.consumed_at IS NULL
                  AND s.id <> ALL (:consumedSignal::bigint[])) inbox ON true
            """;

    // retry: same step, attempt + 1, runnable after the delay; consumes nothing and keeps awaits, so the re-run
    // step sees the same signals.
    static final String APPLY_RETRY = """
            /* durable: retry */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :state::text[], :delayMs::bigint[],
                                     :error::text[])
                    AS o(id, token, state, delay_ms, error)
            )
            UPDATE {schema}.durable_instance d
            SET status = 'runnable',
                state = coalesce(o.state::jsonb, d.state),
                attempt = d.attempt + 1, eligible_at = now() + o.delay_ms * interval '1 millisecond',
                last_error = coalesce(o.error, d.last_error),
                lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            FROM o
            WHERE {fence}
            RETURNING d.id
            """;

    // await, first statement: take the row locks. A signal delivery takes the same lock, so from here on either
    // the delivery committed before (and the next statement, with a fresh snapshot, sees its signal) or it waits
    // for this transaction (and then finds the row parked and wakes it): no wake-up is lost (docs/DESIGN.md,
    // "Signals and wake-ups"; pitfall P1).
    static final String LOCK_FOR_AWAIT = """
            /* durable: await lock */
            SELECT id FROM {schema}.durable_instance WHERE id = ANY (:id::bigint[]) ORDER BY id FOR NO KEY UPDATE
            """;

    // await, second statement: park, unless a matching signal is already in the inbox, in which case the row goes
    // straight back to runnable. Signals already handed to the step as awaited do not count: a step that
    // re-awaits after seeing its signal would otherwise spin (docs/DESIGN.md, pitfall P2).
    static final String APPLY_AWAIT = """
            /* durable: await park */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :awaits::text[], :state::text[])
                    AS o(id, token, awaits, state)
            )
            UPDATE {schema}.durable_instance d
            SET status = CASE WHEN EXISTS (
                                  SELECT 1 FROM {schema}.durable_signal s
                                  WHERE s.instance_id = d.id AND s.name = o.awaits AND s.consumed_at IS NULL
                                    AND NOT EXISTS (
                                        SELECT 1 FROM unnest(:seenInstance::bigint[], :seenSignal::bigint[])
                                                      AS seen(instance_id, signal_id)
                                        WHERE seen.instance_id = d.id AND seen.signal_id = s.id))
                              THEN 'runnable'::{schema}.durable_status
                              ELSE 'awaiting_signal'::{schema}.durable_status END,
                awaits = o.awaits,
                state = coalesce(o.state::jsonb, d.state),
                eligible_at = now(), lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            FROM o
            WHERE {fence}
            RETURNING d.id
            """;

    // done / failed. The inbox is cleared by the next statement, in the same transaction but with a fresh snapshot,
    // so a signal committed while this one waited for the row lock is cleared too.
    static final String APPLY_TERMINAL = """
            /* durable: terminal */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :status::text[], :result::text[],
                                     :error::text[])
                    AS o(id, token, status, result, error)
            )
            UPDATE {schema}.durable_instance d
            SET status = o.status::{schema}.durable_status,
                result = o.result::jsonb,
                last_error = CASE WHEN o.status = 'failed' THEN o.error ELSE d.last_error END,
                awaits = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            FROM o
            WHERE {fence}
            RETURNING d.id
            """;

    // An ended instance's unconsumed signals leave its inbox: those without a dedup key are deleted, those with one
    // stay as tombstones (consumed_at set), so that a redelivery after the end is still recognized as a duplicate.
    // The ids are known, so both writes are driven by them, not by a subquery (docs/DESIGN.md, pitfall P11).
    static final String CLEAR_INBOXES = """
            /* durable: clear inboxes */
            WITH dropped AS (
                DELETE FROM {schema}.durable_signal
                WHERE instance_id = ANY (:id::bigint[]) AND dedup_key IS NULL
            )
            UPDATE {schema}.durable_signal SET consumed_at = now()
            WHERE instance_id = ANY (:id::bigint[]) AND dedup_key IS NOT NULL AND consumed_at IS NULL
            """;

    // After an ambiguous commit (the connection dropped after COMMIT was sent) a retried write that matches no row
    // asks this: a row that is no longer executing but still carries the claim's token was written by this claim.
    private static final String ALREADY_WRITTEN = """
            /* durable: already written */
            SELECT d.id, d.lease_token
            FROM {schema}.durable_instance d
            JOIN unnest(:id::bigint[], :token::bigint[]) AS o(id, token) ON d.id = o.id
            WHERE d.id = ANY (:id::bigint[]) AND d.lease_token = o.token AND d.status <> 'executing'
            """;

    // One statement per tick for all of this node's claims. A node may hold two claims on one row at once (its own
    // stale claim, still running after the row was reaped, and its new one), so claims are told apart by token.
    // Rows are selected in id order with SKIP LOCKED before they are updated, like the reaper, so the two never
    // deadlock (docs/DESIGN.md, pitfall P4). A skipped row is merely busy (an outcome or a signal holds it) and is
    // extended next tick.
    static final String HEARTBEAT = """
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

    private static final String STILL_CLAIMED = """
            /* durable: still claimed */
            SELECT d.id, d.lease_token
            FROM {schema}.durable_instance d, unnest(:id::bigint[], :token::bigint[]) AS o(id, token)
            WHERE {fence}
            """;

    // Crash recovery: expired leases go back to runnable with attempt + 1; the error handler is not involved.
    // eligible_at is left alone (it is in the past): a reaped row keeps its place in pick order, also within its
    // partition key.
    // SKIP LOCKED lets reapers on several nodes run at once without double-counting; the id order is that of
    // pitfall P4 (docs/DESIGN.md).
    static final String REAP = """
            /* durable: reap */
            WITH expired AS (
                SELECT id FROM {schema}.durable_instance
                WHERE status = 'executing' AND lease_expires_at < now()
                ORDER BY id
                LIMIT :limit
                FOR NO KEY UPDATE SKIP LOCKED
            )
            UPDATE {schema}.durable_instance d
            SET status = 'runnable', attempt = d.attempt + 1,
                last_error = 'lease of ' || coalesce(d.lease_owner, '?') || ' expired at step ' || d.step,
                lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
            FROM expired
            WHERE d.id = expired.id
            RETURNING d.id, d.queue
            """;

    // A node that restarts releases the claims of its earlier starts (same stable name, other suffix) as soon as
    // their heartbeats have stopped for a while, instead of leaving them for a whole lease (docs/DESIGN.md,
    // pitfall P9). A claim's last heartbeat was at lease_expires_at - lease; it is stale when older than
    // :staleAfter.
    static final String RELEASE_EARLIER_STARTS = """
            /* durable: release earlier starts */
            WITH stale AS (
                SELECT id FROM {schema}.durable_instance
                WHERE status = 'executing'
                  AND starts_with(lease_owner, :ownerPrefix) AND lease_owner <> :owner
                  AND lease_expires_at < now() + :staleBeforeExpiryMs * interval '1 millisecond'
                ORDER BY id
                FOR NO KEY UPDATE SKIP LOCKED
            )
            UPDATE {schema}.durable_instance d
            SET status = 'runnable', attempt = d.attempt + 1,
                last_error = 'claim of ' || coalesce(d.lease_owner, '?') || ' released by a later start at step '
                             || d.step,
                lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
            FROM stale
            WHERE d.id = stale.id
            RETURNING d.id, d.queue
            """;

    // Graceful shutdown: unfinished claims go back to runnable at once, attempt unchanged (the step did not fail,
    // the node left), fenced like an outcome.
    static final String RELEASE = """
            /* durable: release */
            WITH o AS (SELECT * FROM unnest(:id::bigint[], :token::bigint[]) AS o(id, token))
            UPDATE {schema}.durable_instance d
            SET status = 'runnable',
                lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
            FROM o
            WHERE {fence}
            RETURNING d.id
            """;

    // A step that died of an Error is handed back at once, as the reaper would hand back a crashed step (attempt + 1,
    // no error handler), but without waiting for its lease to expire. Fenced like every write that ends a claim. It
    // becomes eligible again after 2^attempt seconds (at most a minute), so an Error that strikes every run (a stack
    // overflow, say) retries slowly instead of spinning through the queue.
    static final String RETURN_CRASHED = """
            /* durable: return crashed */
            WITH o AS (SELECT * FROM unnest(:id::bigint[], :token::bigint[]) AS o(id, token))
            UPDATE {schema}.durable_instance d
            SET status = 'runnable', attempt = d.attempt + 1, last_error = :error,
                eligible_at = now() + make_interval(secs => least(power(2, d.attempt), 60)),
                lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
            FROM o
            WHERE {fence}
            RETURNING d.id
            """;

    private static final String COLUMNS = """
            id, machine, machine_version, step, status::text AS status, queue, priority, partition_key, awaits,
            attempt, eligible_at, last_error, lease_owner, lease_expires_at, unique_key, state::text AS state,
            result::text AS result, created_at, updated_at
            """;

    private static final String FIND = """
            /* durable: find */
            SELECT {columns} FROM {schema}.durable_instance WHERE id = :id
            """;

    private static final String LIST = """
            /* durable: list */
            SELECT {columns} FROM {schema}.durable_instance
            WHERE id > :afterId
              AND (CAST(:queue AS text) IS NULL OR queue = :queue)
              AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS {schema}.durable_status))
              AND (CAST(:machine AS text) IS NULL OR machine = :machine)
            ORDER BY id
            LIMIT :limit
            """;

    private static final String COUNT = """
            /* durable: count */
            SELECT queue, status::text AS status, count(*) AS n
            FROM {schema}.durable_instance
            GROUP BY queue, status
            """;

    // Per queue, over rows that carry status, eligible_at and lease_expires_at: the counts of the unfinished
    // statuses, the age of the oldest eligible runnable row, and the expired leases. Shared by both summaries.
    private static final String UNFINISHED_SUMMARY = """
            count(*) FILTER (WHERE status = 'runnable') AS runnable,
                   count(*) FILTER (WHERE status = 'executing') AS executing,
                   count(*) FILTER (WHERE status = 'awaiting_signal') AS awaiting_signal,
                   count(*) FILTER (WHERE status = 'failed') AS failed,
                   extract(epoch FROM now() - min(eligible_at)
                       FILTER (WHERE status = 'runnable' AND eligible_at <= now())) AS oldest_runnable_seconds,
                   count(*) FILTER (WHERE status = 'executing' AND lease_expires_at < now()) AS expired_leases""";

    private static final String SUMMARIZE = """
            /* durable: summarize */
            SELECT queue,
                   {unfinishedSummary},
                   count(*) FILTER (WHERE status = 'done') AS done
            FROM {schema}.durable_instance
            GROUP BY queue
            ORDER BY queue
            """;

    // The summary without the done count, for frequent polling (each node's metrics): every branch reads the
    // partial index of its status, so the cost follows the unfinished instances, not the history of done ones (which
    // has no index, and only a scan of the whole table can count).
    static final String SUMMARIZE_LIVE = """
            /* durable: summarize live */
            WITH live AS (
                SELECT queue, status, eligible_at, lease_expires_at
                FROM {schema}.durable_instance WHERE status = 'runnable'
                UNION ALL
                SELECT queue, status, eligible_at, lease_expires_at
                FROM {schema}.durable_instance WHERE status = 'executing'
                UNION ALL
                SELECT queue, status, eligible_at, lease_expires_at
                FROM {schema}.durable_instance WHERE status = 'awaiting_signal'
                UNION ALL
                SELECT queue, status, eligible_at, lease_expires_at
                FROM {schema}.durable_instance WHERE status = 'failed'
            )
            SELECT queue,
                   {unfinishedSummary}
            FROM live
            GROUP BY queue
            ORDER BY queue
            """;

    // An operator's retry of a failed instance: back to runnable at the step it failed at, attempt 0.
    private static final String RETRY_FAILED = """
            /* durable: retry failed */
            UPDATE {schema}.durable_instance
            SET status = 'runnable', attempt = 0, eligible_at = now(), lease_token = NULL, updated_at = now()
            WHERE id = :id AND status = 'failed'
            RETURNING queue
            """;

    private static final int MAX_INSERT_ATTEMPTS = 5;

    /** Statements the driver may prepare on the server, so PostgreSQL may cache a generic plan for them. */
    private final JdbcClient jdbc;
    /** The same statements planned at every execution: see {@link #hot()}. */
    private final JdbcClient freshlyPlanned;
    private final String schemaName;
    /** Whether the table's statistics describe it as small; until the first look, assume they do. */
    private volatile boolean statisticsSaySmall = true;
    private final TransactionTemplate ownTransaction;
    private final String insertSql;
    private final String findUniqueHoldersSql;
    private final String pickSql;
    private final String applyNextSql;
    private final String applyContinueSql;
    private final String applyRetrySql;
    private final String lockForAwaitSql;
    private final String applyAwaitSql;
    private final String applyTerminalSql;
    private final String clearInboxesSql;
    private final String alreadyWrittenSql;
    private final String heartbeatSql;
    private final String stillClaimedSql;
    private final String reapSql;
    private final String releaseEarlierStartsSql;
    private final String releaseSql;
    private final String returnCrashedSql;
    private final String findSql;
    private final String listSql;
    private final String countSql;
    private final String summarizeSql;
    private final String summarizeLiveSql;
    private final String retryFailedSql;

    public InstanceRepository(DataSource dataSource, DurableSchema schema) {
        this.jdbc = JdbcClient.create(dataSource);
        this.freshlyPlanned = JdbcClient.create(new FreshlyPlannedJdbcTemplate(dataSource));
        this.schemaName = schema.name();
        DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);
        this.ownTransaction = new TransactionTemplate(transactionManager);
        this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        Function<String, String> sql = text -> render(text, schema);
        this.insertSql = sql.apply(INSERT);
        this.findUniqueHoldersSql = sql.apply(FIND_UNIQUE_HOLDERS);
        this.pickSql = sql.apply(PICK);
        this.applyNextSql = sql.apply(APPLY_NEXT);
        this.applyContinueSql = sql.apply(APPLY_CONTINUE);
        this.applyRetrySql = sql.apply(APPLY_RETRY);
        this.lockForAwaitSql = sql.apply(LOCK_FOR_AWAIT);
        this.applyAwaitSql = sql.apply(APPLY_AWAIT);
        this.applyTerminalSql = sql.apply(APPLY_TERMINAL);
        this.clearInboxesSql = sql.apply(CLEAR_INBOXES);
        this.alreadyWrittenSql = sql.apply(ALREADY_WRITTEN);
        this.heartbeatSql = sql.apply(HEARTBEAT);
        this.stillClaimedSql = sql.apply(STILL_CLAIMED);
        this.reapSql = sql.apply(REAP);
        this.releaseEarlierStartsSql = sql.apply(RELEASE_EARLIER_STARTS);
        this.releaseSql = sql.apply(RELEASE);
        this.returnCrashedSql = sql.apply(RETURN_CRASHED);
        this.findSql = sql.apply(FIND);
        this.listSql = sql.apply(LIST);
        this.countSql = sql.apply(COUNT);
        this.summarizeSql = sql.apply(SUMMARIZE);
        this.summarizeLiveSql = sql.apply(SUMMARIZE_LIVE);
        this.retryFailedSql = sql.apply(RETRY_FAILED);
    }

    /** A statement of this class as sent: shared fragments in place, names qualified by the schema. */
    static String render(String statement, DurableSchema schema) {
        return schema.qualify(statement
                .replace("{consume}", CONSUME.strip())
                .replace("{fence}", FENCE)
                .replace("{columns}", COLUMNS.strip())
                .replace("{unfinishedSummary}", UNFINISHED_SUMMARY)
                .replace("{claimedStep}", CLAIMED_STEP)
                .replace("{inbox}", INBOX));
    }

    // ---------------------------------------------------------------- planning

    /**
     * Looks at what the table's statistics say about its size (the estimate autovacuum's ANALYZE keeps), so that
     * {@link #hot()} knows whether cached plans can be trusted. The reaper calls it on every run.
     */
    public void refreshPlanning() {
        Long estimate = jdbc.sql(TABLE_SIZE_ESTIMATE).param("schema", schemaName).query(Long.class).optional()
                .orElse(-1L);
        statisticsSaySmall = estimate < SMALL_TABLE_ROWS; // -1: never analyzed
    }

    /**
     * The client of the hot statements (pick, outcome writes, heartbeat, reap, release, and the signal delivery of
     * {@link SignalRepository}, which locks an instance row by its key). While the statistics say the table is
     * small, a plan cached from them may scan it in a nested loop, and picks on a table that has since grown took
     * seconds (see {@link FreshlyPlannedJdbcTemplate}): those statements are then planned at every
     * execution, from the table's real size. Once the statistics describe a sizeable table, plans made from them
     * reach rows through the indexes and stay good as the table grows, so the statements are prepared on the
     * server again and their plans cached (a generic plan saves about a millisecond of planning per batch).
     */
    JdbcClient hot() {
        return statisticsSaySmall ? freshlyPlanned : jdbc;
    }

    // ---------------------------------------------------------------- insert

    /**
     * Inserts the rows in one statement (joining the caller's transaction, if any) and says, per row in the given
     * order, which instance it resolved to. Rows whose unique key is held (by an existing row or by an earlier row
     * of the batch) are not inserted and resolve to the holder.
     */
    public List<StartResult> insert(List<NewInstance> rows) {
        StartResult[] results = new StartResult[rows.size()];
        List<Integer> pending = IntStream.range(0, rows.size()).boxed().toList();
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            if (attempt > MAX_INSERT_ATTEMPTS) {
                throw new IllegalStateException("Could not settle unique keys of " + pending.size()
                        + " rows after " + MAX_INSERT_ATTEMPTS + " attempts: their holders keep changing status");
            }
            pending = insertOnce(rows, pending, results);
        }
        return Arrays.asList(results);
    }

    /** One insert statement for the {@code pending} rows; returns those to try again. */
    private List<Integer> insertOnce(List<NewInstance> rows, List<Integer> pending, StartResult[] results) {
        List<Integer> order = new ArrayList<>(pending);
        order.sort(Comparator.comparing((Integer i) -> rows.get(i).uniqueKey(),
                Comparator.nullsLast(Comparator.naturalOrder())));
        int n = order.size();
        Object[] machine = new Object[n], version = new Object[n], step = new Object[n], state = new Object[n],
                queue = new Object[n], priority = new Object[n], partitionKey = new Object[n],
                delayMs = new Object[n], uniqueKey = new Object[n], uniqueScope = new Object[n];
        for (int k = 0; k < n; k++) {
            NewInstance row = rows.get(order.get(k));
            machine[k] = row.machine();
            version[k] = row.version();
            step[k] = row.step();
            state[k] = row.stateJson();
            queue[k] = row.queue();
            priority[k] = (int) row.priority();
            partitionKey[k] = row.partitionKey();
            delayMs[k] = row.delayMillis();
            uniqueKey[k] = row.uniqueKey();
            uniqueScope[k] = row.uniqueScope();
        }
        List<InsertedRow> inserted = jdbc.sql(insertSql)
                .param("machine", new SqlArrayValue("text", machine))
                .param("version", new SqlArrayValue("int4", version))
                .param("step", new SqlArrayValue("text", step))
                .param("state", new SqlArrayValue("text", state))
                .param("queue", new SqlArrayValue("text", queue))
                .param("priority", new SqlArrayValue("int4", priority))
                .param("partitionKey", new SqlArrayValue("text", partitionKey))
                .param("delayMs", new SqlArrayValue("int8", delayMs))
                .param("uniqueKey", new SqlArrayValue("text", uniqueKey))
                .param("uniqueScope", new SqlArrayValue("text", uniqueScope))
                .query((rs, i) -> new InsertedRow(rs.getLong(1), rs.getString(2)))
                .list();

        // Rows without a unique key cannot conflict: they come back one for one, in insertion order.
        List<Integer> unkeyed = order.stream().filter(i -> rows.get(i).uniqueKey() == null).toList();
        Map<String, Long> insertedByKey = new HashMap<>();
        int nextUnkeyed = 0;
        for (InsertedRow row : inserted) {
            if (row.uniqueKey() == null) {
                results[unkeyed.get(nextUnkeyed++)] = new StartResult(row.id(), true);
            } else {
                insertedByKey.put(row.uniqueKey(), row.id());
            }
        }
        if (nextUnkeyed != unkeyed.size()) {
            throw new IllegalStateException("Inserted " + nextUnkeyed + " rows without a unique key, expected "
                    + unkeyed.size());
        }

        // Keyed rows: the first of the batch holding a key was inserted unless an existing row holds it.
        Map<String, Integer> firstHolderInBatch = new LinkedHashMap<>();
        for (int i : order) {
            String key = rows.get(i).uniqueKey();
            if (key != null) {
                firstHolderInBatch.putIfAbsent(key, i);
            }
        }
        Set<String> heldElsewhere = new HashSet<>(firstHolderInBatch.keySet());
        heldElsewhere.removeAll(insertedByKey.keySet());
        Map<String, Long> holders = new HashMap<>(insertedByKey);
        if (!heldElsewhere.isEmpty()) {
            holders.putAll(findUniqueHolders(heldElsewhere));
        }
        List<Integer> retry = new ArrayList<>();
        for (int i : order) {
            String key = rows.get(i).uniqueKey();
            if (key == null) {
                continue;
            }
            Long holder = holders.get(key);
            if (holder == null) {
                retry.add(i); // the holder left its scope between our insert and our look-up
            } else {
                boolean created = insertedByKey.containsKey(key) && firstHolderInBatch.get(key) == i;
                results[i] = new StartResult(holder, created);
            }
        }
        return retry;
    }

    /** A row the insert statement returned; an empty string is a unique key like any other. */
    private record InsertedRow(long id, @Nullable String uniqueKey) {
    }

    private Map<String, Long> findUniqueHolders(Collection<String> keys) {
        Map<String, Long> holders = new HashMap<>();
        jdbc.sql(findUniqueHoldersSql)
                .param("keys", new SqlArrayValue("text", keys.toArray()))
                .query(rs -> {
                    holders.put(rs.getString(1), rs.getLong(2));
                });
        return holders;
    }

    // ---------------------------------------------------------------- pick

    /**
     * Claims up to {@code limit} runnable rows of {@code queue} for {@code owner}, in one statement.
     *
     * @param machines the (machine, version) pairs this node runs on this queue
     * @throws org.springframework.dao.DuplicateKeyException when another node claimed a row of the same partition
     *         key at the same moment; nothing was claimed and the pick may simply be repeated
     */
    public List<ClaimedStep> pick(String queue, Map<String, List<Integer>> machines, int limit, String owner,
            Duration lease) {
        List<Object> names = new ArrayList<>();
        List<Object> versions = new ArrayList<>();
        machines.forEach((name, machineVersions) -> machineVersions.forEach(v -> {
            names.add(name);
            versions.add(v);
        }));
        return hot().sql(pickSql)
                .param("queue", queue)
                .param("machine", new SqlArrayValue("text", names.toArray()))
                .param("version", new SqlArrayValue("int4", versions.toArray()))
                .param("limit", limit)
                .param("owner", owner)
                .param("leaseMs", lease.toMillis())
                .query((rs, i) -> claimedStep(rs))
                .list();
    }

    private static ClaimedStep claimedStep(ResultSet rs) throws SQLException {
        List<SignalRow> inbox = List.of();
        Array idArray = rs.getArray("signal_ids");
        if (idArray != null) {
            Long[] ids = (Long[]) idArray.getArray();
            String[] names = (String[]) rs.getArray("signal_names").getArray();
            String[] payloads = (String[]) rs.getArray("signal_payloads").getArray();
            String[] dedupKeys = (String[]) rs.getArray("signal_dedup_keys").getArray();
            Timestamp[] created = (Timestamp[]) rs.getArray("signal_created").getArray();
            SignalRow[] signals = new SignalRow[ids.length];
            for (int k = 0; k < ids.length; k++) {
                signals[k] = new SignalRow(ids[k], names[k], payloads[k], dedupKeys[k], created[k].toInstant());
            }
            inbox = List.of(signals);
        }
        return new ClaimedStep(rs.getLong("id"), rs.getString("machine"), rs.getInt("machine_version"),
                rs.getString("step"), rs.getString("state"), rs.getString("awaits"), rs.getInt("attempt"),
                rs.getLong("lease_token"), rs.getString("queue"), rs.getString("partition_key"), inbox);
    }

    // ---------------------------------------------------------------- outcomes

    /**
     * Writes a batch of outcomes, each fenced on its claim, in as few statements as their kinds need (one statement
     * and no explicit transaction for a batch of a single kind among {@code next}, {@code retry} and
     * {@code continue}).
     *
     * @param lease                the lease a {@code continue} renews
     * @param afterAmbiguousCommit whether an earlier attempt at this very batch may have committed; writes that
     *                             match no row are then checked for having been applied by that attempt
     */
    public AppliedOutcomes applyOutcomes(List<Transition> writes, Duration lease, boolean afterAmbiguousCommit) {
        Map<Statement, List<Transition>> byKind = new TreeMap<>();
        for (Transition write : writes) {
            byKind.computeIfAbsent(Statement.of(write), kind -> new ArrayList<>()).add(write);
        }
        boolean singleStatement = byKind.size() == 1 && !byKind.containsKey(Statement.AWAIT)
                && !byKind.containsKey(Statement.TERMINAL);
        AppliedOutcomes result = singleStatement
                ? applyByKind(byKind, lease)
                : Objects.requireNonNull(ownTransaction.execute(status -> applyByKind(byKind, lease)));
        if (afterAmbiguousCommit && result.applied().size() < writes.size()) {
            List<Claim> unmatched = writes.stream()
                    .filter(write -> !result.applied().contains(write.id()))
                    .map(Transition::claim)
                    .toList();
            claimsMatching(alreadyWrittenSql, unmatched).forEach(claim -> result.applied().add(claim.id()));
        }
        return result;
    }

    /** Writes a batch of outcomes with the default of no lease renewal needed (no {@code continue} in it). */
    public AppliedOutcomes applyOutcomes(List<Transition> writes, boolean afterAmbiguousCommit) {
        return applyOutcomes(writes, Duration.ZERO, afterAmbiguousCommit);
    }

    /**
     * What a batch of outcomes did.
     *
     * @param applied   the ids whose outcome is (now or already) applied; the others lost their lease
     * @param continued for each applied {@code continue}, the claimed row of its next step
     */
    public record AppliedOutcomes(Set<Long> applied, Map<Long, ClaimedStep> continued) {
    }

    /** The statement that writes a transition, in the order a batch runs them. */
    private enum Statement {
        NEXT, CONTINUE, RETRY, AWAIT, TERMINAL;

        static Statement of(Transition transition) {
            return switch (transition.kind()) {
                case NEXT -> transition.keepsClaim() ? CONTINUE : NEXT;
                case RETRY -> RETRY;
                case AWAIT -> AWAIT;
                case DONE, STOP -> TERMINAL;
            };
        }
    }

    private AppliedOutcomes applyByKind(Map<Statement, List<Transition>> byKind, Duration lease) {
        Set<Long> applied = new HashSet<>();
        Map<Long, ClaimedStep> continued = new HashMap<>();
        List<Transition> awaits = byKind.getOrDefault(Statement.AWAIT, List.of());
        if (!awaits.isEmpty()) {
            hot().sql(lockForAwaitSql).param("id", ids(awaits)).query(Long.class).list();
        }
        List<Transition> terminal = new ArrayList<>();
        byKind.forEach((kind, batch) -> {
            switch (kind) {
                case NEXT -> applied.addAll(applyNext(batch));
                case CONTINUE -> applyContinue(batch, lease).forEach(step -> {
                    applied.add(step.id());
                    continued.put(step.id(), step);
                });
                case RETRY -> applied.addAll(applyRetry(batch));
                case AWAIT -> applied.addAll(applyAwait(batch));
                case TERMINAL -> terminal.addAll(batch);
            }
        });
        if (!terminal.isEmpty()) {
            List<Long> ended = applyTerminal(terminal);
            applied.addAll(ended);
            if (!ended.isEmpty()) {
                hot().sql(clearInboxesSql).param("id", new SqlArrayValue("int8", ended.toArray())).update();
            }
        }
        return new AppliedOutcomes(applied, continued);
    }

    private List<Long> applyNext(List<Transition> batch) {
        return movingOn(applyNextSql, batch).query(Long.class).list();
    }

    private List<ClaimedStep> applyContinue(List<Transition> batch, Duration lease) {
        return movingOn(applyContinueSql, batch)
                .param("leaseMs", lease.toMillis())
                .query((rs, i) -> claimedStep(rs))
                .list();
    }

    /** A next or a continue: the step to go on with, the state, and the awaited signals to consume. */
    private JdbcClient.StatementSpec movingOn(String sql, List<Transition> batch) {
        Object[] consumedSignal = batch.stream().flatMap(write -> write.awaitedIds().stream()).toArray();
        return hot().sql(sql)
                .param("id", ids(batch))
                .param("token", tokens(batch))
                .param("step", column(batch, "text", Transition::step))
                .param("state", column(batch, "text", Transition::stateJson))
                .param("consumedSignal", new SqlArrayValue("int8", consumedSignal));
    }

    private List<Long> applyRetry(List<Transition> batch) {
        return hot().sql(applyRetrySql)
                .param("id", ids(batch))
                .param("token", tokens(batch))
                .param("state", column(batch, "text", Transition::stateJson))
                .param("delayMs", column(batch, "int8", Transition::delayMillis))
                .param("error", column(batch, "text", Transition::error))
                .query(Long.class)
                .list();
    }

    private List<Long> applyAwait(List<Transition> batch) {
        List<Object> seenInstance = new ArrayList<>();
        List<Object> seenSignal = new ArrayList<>();
        for (Transition write : batch) {
            for (Long signal : write.awaitedIds()) {
                seenInstance.add(write.id());
                seenSignal.add(signal);
            }
        }
        return hot().sql(applyAwaitSql)
                .param("id", ids(batch))
                .param("token", tokens(batch))
                .param("awaits", column(batch, "text", Transition::awaits))
                .param("state", column(batch, "text", Transition::stateJson))
                .param("seenInstance", new SqlArrayValue("int8", seenInstance.toArray()))
                .param("seenSignal", new SqlArrayValue("int8", seenSignal.toArray()))
                .query(Long.class)
                .list();
    }

    private List<Long> applyTerminal(List<Transition> batch) {
        return hot().sql(applyTerminalSql)
                .param("id", ids(batch))
                .param("token", tokens(batch))
                .param("status", column(batch, "text", write -> write.kind() == Outcome.Kind.DONE
                        ? InstanceStatus.DONE.label() : InstanceStatus.FAILED.label()))
                .param("result", column(batch, "text", Transition::resultJson))
                .param("error", column(batch, "text", Transition::error))
                .query(Long.class)
                .list();
    }

    // ---------------------------------------------------------------- leases

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
                .query(InstanceRepository::claim)
                .list());
        if (extended.size() == claims.size()) {
            return List.of();
        }
        // Rarely reached: a claim not extended is either busy (skipped while locked) or gone. Ask which.
        List<Claim> missed = claims.stream().filter(claim -> !extended.contains(claim)).toList();
        Set<Claim> stillClaimed = claimsMatching(stillClaimedSql, missed);
        return missed.stream().filter(claim -> !stillClaimed.contains(claim)).toList();
    }

    /** Returns up to {@code limit} expired claims to runnable with attempt + 1; the reaped ids by queue. */
    public Map<Long, String> reapExpired(int limit) {
        Map<Long, String> reaped = new LinkedHashMap<>();
        hot().sql(reapSql).param("limit", limit).query(rs -> {
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
        hot().sql(releaseEarlierStartsSql)
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

    // ---------------------------------------------------------------- read API

    /** The instance {@code id}, whose state and result read with {@code codec}. */
    public Optional<DurableInstance> find(long id, JsonCodec codec) {
        return jdbc.sql(findSql).param("id", id).query((rs, i) -> instance(rs, codec)).optional();
    }

    /** The instances {@code query} selects, whose states and results read with {@code codec}. */
    public List<DurableInstance> list(InstanceQuery query, JsonCodec codec) {
        return jdbc.sql(listSql)
                .param("afterId", query.afterId())
                .param("queue", query.queue())
                .param("status", query.status() == null ? null : query.status().label())
                .param("machine", query.machine())
                .param("limit", query.limit())
                .query((rs, i) -> instance(rs, codec))
                .list();
    }

    /** Instances per queue and status. */
    public Map<String, Map<InstanceStatus, Long>> count() {
        Map<String, Map<InstanceStatus, Long>> counts = new TreeMap<>();
        jdbc.sql(countSql).query(rs -> {
            counts.computeIfAbsent(rs.getString("queue"), queue -> new TreeMap<>())
                    .put(InstanceStatus.fromLabel(rs.getString("status")), rs.getLong("n"));
        });
        return counts;
    }

    /** Per queue: counts by status, oldest runnable age, expired leases. Reads the whole table. */
    public List<QueueSummary> summarize() {
        return summaries(summarizeSql, EnumSet.allOf(InstanceStatus.class));
    }

    /** As {@link #summarize()} but without the done count; reads only the partial indexes of the other statuses. */
    public List<QueueSummary> summarizeLive() {
        return summaries(summarizeLiveSql, EnumSet.complementOf(EnumSet.of(InstanceStatus.DONE)));
    }

    private List<QueueSummary> summaries(String sql, Set<InstanceStatus> counted) {
        return jdbc.sql(sql).query((rs, i) -> {
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
     * Makes a failed instance runnable again; the queue it runs on, or empty if it was missing or not failed.
     *
     * @throws org.springframework.dao.DuplicateKeyException if another instance holds its unique key now
     */
    public Optional<String> retryFailed(long id) {
        return jdbc.sql(retryFailedSql).param("id", id).query(String.class).optional();
    }

    private static DurableInstance instance(ResultSet rs, JsonCodec codec) throws SQLException {
        return new InstanceRow(rs.getLong("id"), rs.getString("machine"), rs.getInt("machine_version"),
                rs.getString("step"), InstanceStatus.fromLabel(rs.getString("status")), rs.getString("queue"),
                rs.getShort("priority"), rs.getString("partition_key"), rs.getString("awaits"), rs.getInt("attempt"),
                instant(rs, "eligible_at"), rs.getString("last_error"), rs.getString("lease_owner"),
                nullableInstant(rs, "lease_expires_at"), rs.getString("unique_key"), rs.getString("state"),
                rs.getString("result"), instant(rs, "created_at"), instant(rs, "updated_at"), codec);
    }

    // ---------------------------------------------------------------- helpers

    /** The claims among {@code claims} that {@code sql} (selecting {@code id, lease_token}) finds. */
    private Set<Claim> claimsMatching(String sql, List<Claim> claims) {
        return new HashSet<>(onClaims(sql, claims)
                .query(InstanceRepository::claim)
                .list());
    }

    /** A hot statement with {@code claims} bound as its {@code :id} and {@code :token} arrays. */
    private JdbcClient.StatementSpec onClaims(String sql, List<Claim> claims) {
        return hot().sql(sql)
                .param("id", new SqlArrayValue("int8", claims.stream().map(Claim::id).toArray()))
                .param("token", new SqlArrayValue("int8", claims.stream().map(Claim::token).toArray()));
    }

    private static Claim claim(ResultSet rs, int rowNum) throws SQLException {
        return new Claim(rs.getLong("id"), rs.getLong("lease_token"));
    }

    private static SqlArrayValue ids(List<Transition> batch) {
        return column(batch, "int8", Transition::id);
    }

    private static SqlArrayValue tokens(List<Transition> batch) {
        return column(batch, "int8", write -> write.claim().token());
    }

    private static SqlArrayValue column(List<Transition> batch, String type,
            Function<Transition, @Nullable Object> value) {
        return new SqlArrayValue(type, batch.stream().map(value).toArray());
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return Objects.requireNonNull(nullableInstant(rs, column), column);
    }

    private static @Nullable Instant nullableInstant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
