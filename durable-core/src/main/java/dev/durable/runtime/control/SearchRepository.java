package dev.durable.runtime.control;

import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Target;
import dev.durable.TargetCheck;
import dev.durable.json.JsonCodec;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.jdbc.StatementVariants;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of finding instances by what an application or an operator knows of them, for the
 * {@link DefaultDurableClient}: a page of the instances an {@link InstanceQuery} selects, or their count, the holder of
 * a unique key, the breaches of targets, and the locks the bulk operations and the operations addressed by unique key take before they act
 * (docs/DESIGN.md, "Finding instances").
 *
 * <p>Every criterion of a query is optional, so each statement tests each one as {@code (:x IS NULL OR column = :x)}
 * and goes through {@link StatementPlanning#freshlyPlanned()}: planned for the values given, the tests of unset
 * criteria fold away and a key that is set is reached through its index. Statuses are bound as an array literal of
 * unspecified type, which PostgreSQL reads as {@code durable_status[]} at bind time, so the plan sees constant
 * statuses and can match the partial indexes of one status. The reads join the caller's Spring transaction, if any;
 * the locks and the action that follows them run in it, or in a transaction of their own.
 */
public final class SearchRepository {

    // A page of the instances a query selects, in three variants: "search", oldest first; "newest first", the keyset
    // and the order reversed (afterId 0: from the newest); "lock page", the page a bulk operation acts on, oldest
    // first, locked in id order like every multi-row statement (docs/DESIGN.md, pitfall P4); and a fourth, "count",
    // every instance the criteria select, counted per status (a suspended one as suspended), whatever the query's page:
    // no keyset, no limit (docs/DESIGN.md, "Counting instances"). Every criterion is optional (NULL: not set);
    // :statuses is never NULL (every status when the query names none). Ids start at 1, so afterId 0 reads from the
    // first. A suspended instance is a runnable row with a reason (docs/DESIGN.md, "Suspension"): :statuses names the
    // stored statuses (runnable for suspended), :suspended and :plainRunnable which of the two kinds of runnable rows
    // are wanted, and :onlySuspended that nothing else is, so that the plan can read the index of suspended rows. The
    // lock: a row another transaction is changing is waited for and its criteria are checked again on the row as that
    // transaction left it (READ COMMITTED re-checks the WHERE of a locking read), so a row that no longer matches is
    // left out and the page filled from further on: the action that follows acts only on rows that match as it acts.
    // :waitingMs selects the rows that have waited that long since they last fell due or parked (eligible_at, which
    // a park sets to its own time): a suspended row waits at 'infinity' and a timer in the future, so neither is
    // selected (docs/DESIGN.md, "Targets").
    public static final String PAGE = """
            /* durable: search */ -- in: search
            /* durable: search newest first */ -- in: newest first
            /* durable: lock page */ -- in: lock page
            /* durable: count query */ -- in: count
            SELECT id, machine, machine_version, step, -- in: search, newest first
                   CASE WHEN suspension IS NOT NULL AND status = 'runnable' -- in: search, newest first
                        THEN 'suspended' ELSE status::text END AS status, -- in: search, newest first
                   queue, priority, partition_key, awaits, attempt, eligible_at, -- in: search, newest first
                   last_error, lease_owner, lease_expires_at, unique_key, -- in: search, newest first
                   unique_guard IS NOT NULL AS holds_unique_key, correlation_key, -- in: search, newest first
                   state::text AS state, result::text AS result, -- in: search, newest first
                   created_at, updated_at, parent_id -- in: search, newest first
            SELECT id -- in: lock page
            SELECT CASE WHEN suspension IS NOT NULL AND status = 'runnable' -- in: count
                        THEN 'suspended' ELSE status::text END AS status, -- in: count
                   count(*) AS n -- in: count
            FROM {schema}.durable_instance
            WHERE id > :afterId -- in: search, lock page
            WHERE (CAST(:afterId AS bigint) = 0 OR id < :afterId) -- in: newest first
              AND status = ANY (:statuses) -- in: search, newest first, lock page
            WHERE status = ANY (:statuses) -- in: count
              AND (suspension IS NULL OR CAST(:suspended AS boolean))
              AND (suspension IS NOT NULL OR status <> 'runnable' OR CAST(:plainRunnable AS boolean))
              AND (suspension IS NOT NULL OR NOT CAST(:onlySuspended AS boolean))
              AND (CAST(:queue AS text) IS NULL OR queue = :queue)
              AND (CAST(:machine AS text) IS NULL OR machine = :machine)
              AND (CAST(:version AS integer) IS NULL OR machine_version = :version)
              AND (CAST(:step AS text) IS NULL OR step = :step)
              AND (CAST(:uniqueKey AS text) IS NULL OR unique_key = :uniqueKey)
              AND (CAST(:correlationKey AS text) IS NULL OR correlation_key = :correlationKey)
              AND (CAST(:createdFrom AS timestamptz) IS NULL OR created_at >= :createdFrom)
              AND (CAST(:createdBefore AS timestamptz) IS NULL OR created_at < :createdBefore)
              AND (CAST(:updatedFrom AS timestamptz) IS NULL OR updated_at >= :updatedFrom)
              AND (CAST(:updatedBefore AS timestamptz) IS NULL OR updated_at < :updatedBefore)
              AND (CAST(:errorContains AS text) IS NULL
                   OR position(lower(:errorContains) IN lower(last_error)) > 0)
              AND (CAST(:waitingMs AS bigint) IS NULL
                   OR (status IN ('runnable', 'awaiting_signal')
                       AND eligible_at <= now() - :waitingMs * interval '1 millisecond'))
            ORDER BY id -- in: search, lock page
            ORDER BY id DESC -- in: newest first
            LIMIT :limit -- in: search, newest first, lock page
            FOR NO KEY UPDATE -- in: lock page
            GROUP BY 1 -- in: count
            """;

    /** {@link #PAGE}'s four texts, by name. */
    public static final Map<String, String> PAGES = StatementVariants.render(PAGE, "search", "newest first",
            "lock page", "count");
    public static final String SEARCH = PAGES.get("search");
    public static final String SEARCH_NEWEST_FIRST = PAGES.get("newest first");
    public static final String LOCK_PAGE = PAGES.get("lock page");
    static final String COUNT = PAGES.get("count");

    // The instance holding a unique key now, through the unique index (docs/DESIGN.md, "Uniqueness").
    public static final String FIND_HOLDER = """
            /* durable: find unique key holder */
            SELECT id, machine, machine_version, step,
                   CASE WHEN suspension IS NOT NULL AND status = 'runnable' THEN 'suspended' ELSE status::text END
                       AS status,
                   queue, priority, partition_key, awaits,
                   attempt, eligible_at, last_error, lease_owner, lease_expires_at, unique_key,
                   unique_guard IS NOT NULL AS holds_unique_key, correlation_key, state::text AS state,
                   result::text AS result, created_at, updated_at, parent_id
            FROM {schema}.durable_instance
            WHERE unique_guard = :uniqueKey
            """;

    // The holder of a unique key, locked, for a signal or a cancel addressed by the key. The lock waits for a
    // transaction changing the row, and the key is checked again on the row it left: a holder that left its scope
    // meanwhile (it ended) is no holder. The signal or cancel that follows, in the same transaction, then locks the
    // row by id as it always does, and finds it as this lock left it.
    public static final String LOCK_HOLDER = """
            /* durable: lock unique key holder */
            SELECT id
            FROM {schema}.durable_instance
            WHERE unique_guard = :uniqueKey
            FOR NO KEY UPDATE
            """;

    // The targets' breaches (docs/DESIGN.md, "Targets"), every target in one statement, one branch per kind, each target
    // a lateral count through the index that holds what it tests, from the index alone: a queue's due runnable rows
    // through the pick index (queue, priority, eligible_at), a machine's rows at a step through durable_instance_step
    // (machine, machine_version, step, status, id) INCLUDE (eligible_at, ...). A suspended row waits at 'infinity' and
    // a timer in the future, so the bound on eligible_at leaves both out without reading the row. What a target costs
    // is a walk of its queue's runnable entries or of its machine's unfinished ones, at most what the live counts
    // read; with no target, the client runs nothing.
    public static final String CHECK_TARGETS = """
            /* durable: check targets */
            SELECT 'queue' AS kind, t.nth, b.breaching, b.longest_ms
            FROM unnest(:queue::text[], :queueLimitMs::bigint[]) WITH ORDINALITY AS t(queue, limit_ms, nth)
            CROSS JOIN LATERAL (
                SELECT count(*) AS breaching,
                       (extract(epoch FROM now() - min(i.eligible_at)) * 1000)::bigint AS longest_ms
                FROM {schema}.durable_instance i
                WHERE i.status = 'runnable' AND i.queue = t.queue
                  AND i.eligible_at <= now() - t.limit_ms * interval '1 millisecond') b
            UNION ALL
            SELECT 'step', t.nth, b.breaching, b.longest_ms
            FROM unnest(:machine::text[], :step::text[], :stepLimitMs::bigint[]) WITH ORDINALITY
                AS t(machine, step, limit_ms, nth)
            CROSS JOIN LATERAL (
                SELECT count(*) AS breaching,
                       (extract(epoch FROM now() - min(i.eligible_at)) * 1000)::bigint AS longest_ms
                FROM {schema}.durable_instance i
                WHERE i.status IN ('runnable', 'awaiting_signal') AND i.machine = t.machine AND i.step = t.step
                  AND i.eligible_at <= now() - t.limit_ms * interval '1 millisecond') b
            """;

    /** The statuses bound when a query names none: every one (the column is never NULL). */
    private static final String EVERY_STATUS = statusArray(Arrays.asList(InstanceStatus.values()));

    private final StatementPlanning planning;
    /** Joins the caller's transaction on the engine's DataSource, or begins one for a lock and its action. */
    private final TransactionTemplate transaction;
    private final String searchSql;
    private final String searchNewestFirstSql;
    private final String countSql;
    private final String lockPageSql;
    private final String findHolderSql;
    private final String lockHolderSql;
    private final String checkTargetsSql;

    public SearchRepository(DataSource dataSource, StatementPlanning planning) {
        this.planning = planning;
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.searchSql = planning.qualify(SEARCH);
        this.searchNewestFirstSql = planning.qualify(SEARCH_NEWEST_FIRST);
        this.countSql = planning.qualify(COUNT);
        this.lockPageSql = planning.qualify(LOCK_PAGE);
        this.findHolderSql = planning.qualify(FIND_HOLDER);
        this.lockHolderSql = planning.qualify(LOCK_HOLDER);
        this.checkTargetsSql = planning.qualify(CHECK_TARGETS);
    }

    /** The page {@code query} selects, in its order; states and results read with {@code codec}. */
    List<DurableInstance> search(InstanceQuery query, JsonCodec codec) {
        String sql = query.order() == InstanceQuery.Order.NEWEST_FIRST ? searchNewestFirstSql : searchSql;
        return bind(planning.freshlyPlanned().sql(sql), query)
                .query((rs, i) -> InstanceRow.read(rs, codec))
                .list();
    }

    /** Every instance {@code query} selects, whatever its page, per status: every status present, zero included. */
    Map<InstanceStatus, Long> count(InstanceQuery query) {
        Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
        for (InstanceStatus status : InstanceStatus.values()) {
            counts.put(status, 0L);
        }
        bind(planning.freshlyPlanned().sql(countSql), query).query(rs -> {
            counts.put(InstanceStatus.fromLabel(rs.getString("status")), rs.getLong("n"));
        });
        return Collections.unmodifiableMap(counts);
    }

    /** The instance holding {@code uniqueKey} now, if any. */
    Optional<DurableInstance> holder(String uniqueKey, JsonCodec codec) {
        return planning.ordinary().sql(findHolderSql).param("uniqueKey", uniqueKey)
                .query((rs, i) -> InstanceRow.read(rs, codec))
                .optional();
    }

    /**
     * Locks the page {@code query} selects, oldest first whatever its order, and runs {@code action} on the ids of
     * its rows (ascending; empty for none) in the same transaction, the caller's or one of its own.
     */
    <T> T withLockedPage(InstanceQuery query, Function<List<Long>, T> action) {
        return transaction.execute(status -> action.apply(
                bind(planning.freshlyPlanned().sql(lockPageSql), query).query(Long.class).list()));
    }

    /**
     * Locks the holder of {@code uniqueKey} and runs {@code action} on its id ({@code null} when no instance holds
     * the key) in the same transaction, the caller's or one of its own.
     */
    <T> T withLockedHolder(String uniqueKey, Function<@Nullable Long, T> action) {
        return transaction.execute(status -> action.apply(planning.ordinary().sql(lockHolderSql)
                .param("uniqueKey", uniqueKey).query(Long.class).optional().orElse(null)));
    }

    /**
     * What each of {@code targets} finds now, in their order; no statement for none.
     *
     * @throws IllegalArgumentException if a target is named twice
     */
    List<TargetCheck> check(List<Target> targets) {
        Objects.requireNonNull(targets, "targets must not be null");
        if (targets.stream().distinct().count() < targets.size()) {
            throw new IllegalArgumentException("A target is named twice in " + targets);
        }
        if (targets.isEmpty()) {
            return List.of();
        }
        List<Target> queues = targets.stream().filter(t -> t.kind() == Target.Kind.OLDEST_RUNNABLE_AGE).toList();
        List<Target> steps = targets.stream().filter(t -> t.kind() == Target.Kind.TIME_AT_STEP).toList();
        Map<Target, TargetCheck> found = new HashMap<>();
        planning.ordinary().sql(checkTargetsSql)
                .param("queue", new SqlArrayValue("text", queues.stream().map(Target::queue).toArray()))
                .param("queueLimitMs", new SqlArrayValue("bigint", limits(queues)))
                .param("machine", new SqlArrayValue("text", steps.stream().map(Target::machine).toArray()))
                .param("step", new SqlArrayValue("text", steps.stream().map(Target::step).toArray()))
                .param("stepLimitMs", new SqlArrayValue("bigint", limits(steps)))
                .query(rs -> {
                    Target target = ("queue".equals(rs.getString("kind")) ? queues : steps)
                            .get(rs.getInt("nth") - 1);
                    long longest = rs.getLong("longest_ms");
                    Duration longestWait = rs.wasNull() ? null : Duration.ofMillis(longest);
                    found.put(target, new TargetCheck(target, rs.getLong("breaching"), longestWait));
                });
        return targets.stream().map(found::get).toList();
    }

    private static Object[] limits(List<Target> targets) {
        return targets.stream().map(t -> t.limit().toMillis()).toArray();
    }

    /** Binds the criteria of {@code query}, each with its SQL type, so that a NULL needs no look-up of its type. */
    private static JdbcClient.StatementSpec bind(JdbcClient.StatementSpec statement, InstanceQuery query) {
        return statement
                .param("afterId", query.afterId())
                .param("statuses", query.statuses().isEmpty() ? EVERY_STATUS : statusArray(query.statuses()),
                        Types.OTHER)
                .param("suspended", wants(query, InstanceStatus.SUSPENDED))
                .param("plainRunnable", wants(query, InstanceStatus.RUNNABLE))
                .param("onlySuspended", query.statuses().equals(Set.of(InstanceStatus.SUSPENDED)))
                .param("queue", query.queue(), Types.VARCHAR)
                .param("machine", query.machine(), Types.VARCHAR)
                .param("version", query.version(), Types.INTEGER)
                .param("step", query.step(), Types.VARCHAR)
                .param("uniqueKey", query.uniqueKey(), Types.VARCHAR)
                .param("correlationKey", query.correlationKey(), Types.VARCHAR)
                .param("createdFrom", timestamp(query.createdFrom()), Types.TIMESTAMP_WITH_TIMEZONE)
                .param("createdBefore", timestamp(query.createdBefore()), Types.TIMESTAMP_WITH_TIMEZONE)
                .param("updatedFrom", timestamp(query.updatedFrom()), Types.TIMESTAMP_WITH_TIMEZONE)
                .param("updatedBefore", timestamp(query.updatedBefore()), Types.TIMESTAMP_WITH_TIMEZONE)
                .param("errorContains", query.errorContains(), Types.VARCHAR)
                .param("waitingMs", query.waitingLongerThan() == null ? null : query.waitingLongerThan().toMillis(),
                        Types.BIGINT)
                .param("limit", query.limit());
    }

    private static boolean wants(InstanceQuery query, InstanceStatus status) {
        return query.statuses().isEmpty() || query.statuses().contains(status);
    }

    /**
     * A PostgreSQL array literal of the stored statuses of {@code statuses}, e.g. {@code {failed,cancelled}}: labels
     * need no quoting; a suspended instance is stored as runnable.
     */
    private static String statusArray(Collection<InstanceStatus> statuses) {
        return statuses.stream().map(status -> status == InstanceStatus.SUSPENDED ? InstanceStatus.RUNNABLE : status)
                .distinct().map(InstanceStatus::label).collect(Collectors.joining(",", "{", "}"));
    }

    private static @Nullable OffsetDateTime timestamp(@Nullable Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }
}
