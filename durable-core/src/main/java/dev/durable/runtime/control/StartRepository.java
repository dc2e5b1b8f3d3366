package dev.durable.runtime.control;

import dev.durable.StartResult;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The SQL of starting instances, for the {@link DefaultDurableClient}: a batch of new rows inserted in one
 * statement, and each row resolved to the instance it started or to the one already holding its unique key
 * (docs/DESIGN.md, "Uniqueness"). Joins the caller's Spring transaction, if any; the statements go through
 * {@link StatementPlanning#ordinary()}.
 */
public final class StartRepository {

    // Concurrent batches sharing unique keys are inserted in key order (the caller sorts), so they take the unique
    // index's locks in one order and cannot deadlock (docs/DESIGN.md, pitfall P5).
    // Columns travel as arrays and are unnested, so a batch has 11 bind parameters whatever its size
    // (docs/DESIGN.md, pitfall P8).
    // The inserted rows come back in insertion order, which is the ORDER BY of the select.
    // A row whose claim this node reserved (:claim) is inserted claimed by it, as a pick would leave it, unless its
    // queue's head in pick order is a due row of its priority or any row of a higher one (a lower number): the pick
    // would take that first (docs/DESIGN.md, "Local starts"). The look at the head reads the first
    // entry of the pick index, and only for the rows that may claim (CASE evaluates it lazily). The lease counts from
    // the statement's own clock, not from the start of the caller's transaction. A row left runnable and due notifies
    // the other nodes (docs/DESIGN.md, "Wake-ups"; PostgreSQL sends one notification per queue and transaction); a
    // claimed row, or any when :wakeChannel is null (poll only), notifies no one.
    private static final String INSERT = """
            /* durable: insert */
            INSERT INTO {schema}.durable_instance
                (machine, machine_version, step, state, queue, priority, partition_key, eligible_at,
                 unique_key, unique_scope, correlation_key, status, lease_owner, lease_token, lease_expires_at,
                 trace_context)
            SELECT r.machine, r.machine_version, r.step, r.state::jsonb, r.queue, r.priority::smallint,
                   r.partition_key, now() + r.delay_ms * interval '1 millisecond',
                   r.unique_key, r.unique_scope::{schema}.durable_status[], r.correlation_key,
                   CASE WHEN r.claimed THEN 'executing' ELSE 'runnable' END::{schema}.durable_status,
                   CASE WHEN r.claimed THEN :owner END,
                   CASE WHEN r.claimed THEN nextval('{schema}.durable_lease_token_seq') END,
                   CASE WHEN r.claimed THEN clock_timestamp() + :leaseMs * interval '1 millisecond' END,
                   :trace::text
            FROM (
                SELECT u.*,
                       CASE WHEN u.claim THEN NOT EXISTS (
                           SELECT 1
                           FROM (SELECT i.priority, i.eligible_at FROM {schema}.durable_instance i
                                 WHERE i.queue = u.queue AND i.status = 'runnable'
                                 ORDER BY i.priority, i.eligible_at LIMIT 1) head
                           WHERE head.priority < u.priority
                              OR (head.priority = u.priority AND head.eligible_at <= now()))
                       ELSE false END AS claimed
                FROM unnest(:machine::text[], :version::int[], :step::text[], :state::text[], :queue::text[],
                            :priority::int[], :partitionKey::text[], :delayMs::bigint[], :uniqueKey::text[],
                            :uniqueScope::text[], :correlationKey::text[], :claim::boolean[])
                     WITH ORDINALITY AS u(machine, machine_version, step, state, queue, priority, partition_key,
                                          delay_ms, unique_key, unique_scope, correlation_key, claim, ord)
            ) r
            ORDER BY r.ord
            ON CONFLICT (unique_guard) WHERE unique_guard IS NOT NULL DO NOTHING
            RETURNING id, unique_key, status = 'executing' AS claimed, lease_token,
                      CASE WHEN status = 'executing' THEN state::text END AS claimed_state,
                      CASE WHEN status = 'runnable' AND eligible_at <= now() AND CAST(:wakeChannel AS text) IS NOT NULL
                           THEN pg_notify(:wakeChannel, 'q:' || queue) END AS notified
            """;

    private static final String FIND_UNIQUE_HOLDERS = """
            /* durable: find unique holders */
            SELECT unique_guard, id FROM {schema}.durable_instance WHERE unique_guard = ANY (:keys::text[])
            """;

    private static final int MAX_INSERT_ATTEMPTS = 5;

    private final StatementPlanning planning;
    private final String owner;
    private final long leaseMillis;
    private final String insertSql;
    private final String findUniqueHoldersSql;

    /**
     * @param owner this node's id, the owner of the claims its starts make
     * @param lease how long such a claim is leased, like a pick's
     */
    public StartRepository(StatementPlanning planning, String owner, Duration lease) {
        this.planning = planning;
        this.owner = owner;
        this.leaseMillis = lease.toMillis();
        this.insertSql = planning.qualify(INSERT);
        this.findUniqueHoldersSql = planning.qualify(FIND_UNIQUE_HOLDERS);
    }

    /**
     * What a start inserted: per row in the given order, the instance it resolved to, and the claim this node holds
     * on it (null unless the row may claim, was inserted, and nothing stood before it in its queue).
     */
    public record Inserted(List<StartResult> results, List<@Nullable ClaimedStep> claimed) {
    }

    /** {@link #insert(List, boolean[])} claiming nothing. */
    public List<StartResult> insert(List<NewInstance> rows) {
        return insert(rows, new boolean[rows.size()]).results();
    }

    /**
     * Inserts the rows in one statement (joining the caller's transaction, if any) and says, per row in the given
     * order, which instance it resolved to. Rows whose unique key is held (by an existing row or by an earlier row
     * of the batch) are not inserted and resolve to the holder. A row whose {@code claim} is set is inserted claimed
     * by this node when its queue has nothing to pick before it.
     */
    public Inserted insert(List<NewInstance> rows, boolean[] claim) {
        return insert(rows, claim, null);
    }

    /**
     * {@link #insert(List, boolean[])}, the rows carrying the start's trace context (docs/DESIGN.md, "Tracing"), as
     * stored text, or null for none.
     */
    public Inserted insert(List<NewInstance> rows, boolean[] claim, @Nullable String trace) {
        StartResult[] results = new StartResult[rows.size()];
        ClaimedStep[] claimed = new ClaimedStep[rows.size()];
        List<Integer> pending = IntStream.range(0, rows.size()).boxed().toList();
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            if (attempt > MAX_INSERT_ATTEMPTS) {
                throw new IllegalStateException("Could not settle unique keys of " + pending.size()
                        + " rows after " + MAX_INSERT_ATTEMPTS + " attempts: their holders keep changing status");
            }
            pending = insertOnce(rows, claim, pending, results, claimed, trace);
        }
        return new Inserted(Arrays.asList(results), Arrays.asList(claimed));
    }

    /** One insert statement for the {@code pending} rows; returns those to try again. */
    private List<Integer> insertOnce(List<NewInstance> rows, boolean[] claim, List<Integer> pending,
            StartResult[] results, ClaimedStep[] claimed, @Nullable String trace) {
        List<Integer> order = new ArrayList<>(pending);
        order.sort(Comparator.comparing((Integer i) -> rows.get(i).uniqueKey(),
                Comparator.nullsLast(Comparator.naturalOrder())));
        int n = order.size();
        Object[] machine = new Object[n], version = new Object[n], step = new Object[n], state = new Object[n],
                queue = new Object[n], priority = new Object[n], partitionKey = new Object[n],
                delayMs = new Object[n], uniqueKey = new Object[n], uniqueScope = new Object[n],
                correlationKey = new Object[n], claims = new Object[n];
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
            correlationKey[k] = row.correlationKey();
            claims[k] = claim[order.get(k)];
        }
        List<InsertedRow> inserted = planning.ordinary().sql(insertSql)
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
                .param("correlationKey", new SqlArrayValue("text", correlationKey))
                .param("claim", new SqlArrayValue("bool", claims))
                .param("owner", owner)
                .param("leaseMs", leaseMillis)
                .param("wakeChannel", planning.wakeChannel())
                .param("trace", trace)
                .query((rs, i) -> new InsertedRow(rs.getLong(1), rs.getString(2), rs.getBoolean(3),
                        rs.getLong(4), rs.getString(5)))
                .list();

        // Rows without a unique key cannot conflict: they come back one for one, in insertion order.
        List<Integer> unkeyed = order.stream().filter(i -> rows.get(i).uniqueKey() == null).toList();
        Map<String, Long> insertedByKey = new HashMap<>();
        Map<String, InsertedRow> claimedByKey = new HashMap<>();
        int nextUnkeyed = 0;
        for (InsertedRow row : inserted) {
            if (row.uniqueKey() == null) {
                int index = unkeyed.get(nextUnkeyed++);
                results[index] = new StartResult(row.id(), true);
                claimed[index] = row.claimed(rows.get(index), trace);
            } else {
                insertedByKey.put(row.uniqueKey(), row.id());
                claimedByKey.put(row.uniqueKey(), row);
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
                if (created) {
                    claimed[i] = claimedByKey.get(key).claimed(rows.get(i), trace);
                }
            }
        }
        return retry;
    }

    /**
     * A row the insert statement returned; an empty string is a unique key like any other. A row inserted claimed
     * comes with its claim's token and its stored state (its JSON as the database keeps it, as a pick reads it).
     */
    private record InsertedRow(long id, @Nullable String uniqueKey, boolean isClaimed, long leaseToken,
            @Nullable String claimedState) {

        /** The claim on the row, as a pick of it would have returned it; null if the row was inserted runnable. */
        @Nullable ClaimedStep claimed(NewInstance row, @Nullable String trace) {
            if (!isClaimed) {
                return null;
            }
            return new ClaimedStep(id, row.machine(), row.version(), row.step(), claimedState, List.of(), false, 0,
                    leaseToken, row.queue(), row.partitionKey(), List.of(), ClaimedStep.Family.NONE, trace);
        }
    }

    private Map<String, Long> findUniqueHolders(Collection<String> keys) {
        Map<String, Long> holders = new HashMap<>();
        planning.ordinary().sql(findUniqueHoldersSql)
                .param("keys", new SqlArrayValue("text", keys.toArray()))
                .query(rs -> {
                    holders.put(rs.getString(1), rs.getLong(2));
                });
        return holders;
    }
}
