package dev.durable.runtime.queue;

import dev.durable.runtime.ClusterLimits;
import dev.durable.runtime.jdbc.LiteralLimits;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.step.ClaimedStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of a queue's cluster-wide limits (docs/DESIGN.md, "Cluster-wide limits"): the limited pick, a transaction of
 * the lock of the queue's limit row and the pick's variant {@link ClaimRepository#PICK_LIMITED}, both through
 * {@link StatementPlanning#hot()}.
 */
public final class LimitRepository {

    // The first statement of a limited pick's transaction (docs/DESIGN.md, "Cluster-wide limits"): locks the queue's
    // limit row, written at the queue's first limited pick with a full bucket. A row lock, released at the commit: no
    // session state, so a pooler in transaction mode keeps working. The pick that follows reads the executing rows in
    // a snapshot taken once the lock is held: in one statement, the count would come from a snapshot taken before the
    // wait, and miss what the pick that held the lock had claimed.
    public static final String LOCK_LIMIT = """
            /* durable: lock limit */
            INSERT INTO {schema}.durable_queue_limit AS l (queue, tokens, refilled_at)
            VALUES (:queue, :starts, clock_timestamp())
            ON CONFLICT (queue) DO UPDATE SET queue = l.queue
            """;

    /**
     * How long a node held back by a limit keeps its place among the waiters after its last pick: a node held back
     * picks again within a poll interval (at most {@link LimitedPicks#LONGEST_HELD_BACK_PAUSE}), so one not seen for
     * this long no longer waits.
     */
    public static final Duration WAITER_LIFETIME = Duration.ofSeconds(2);

    private final StatementPlanning planning;
    private final ClaimRepository claims;
    private final LiteralLimits pickLimitedSql;
    private final String lockLimitSql;
    private final TransactionTemplate limitedPick;

    LimitRepository(StatementPlanning planning, ClaimRepository claims) {
        this.planning = planning;
        this.claims = claims;
        this.pickLimitedSql = new LiteralLimits(planning.qualify(ClaimRepository.PICK_LIMITED));
        this.lockLimitSql = planning.qualify(LOCK_LIMIT);
        this.limitedPick = new TransactionTemplate(new DataSourceTransactionManager(planning.dataSource()));
        this.limitedPick.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    /**
     * What a limited pick claimed, and what it saw of the limits.
     *
     * @param room      how many rows the limits let it claim (at most the rows asked for)
     * @param tokens    the bucket's tokens before the pick took its own; null without a rate
     * @param executing the queue's executing rows on all nodes before the pick; null without a concurrency limit
     */
    public record LimitedPick(List<ClaimedStep> rows, int room, @Nullable Double tokens, @Nullable Long executing) {

        /** Whether the limits, not the lack of due rows, kept the pick from claiming all it asked for. */
        public boolean heldBack(int asked) {
            return room < asked && rows.size() >= room;
        }
    }

    /**
     * Claims up to {@code limit} runnable rows of {@code queue} for {@code owner} within the queue's cluster-wide
     * {@code limits}, in one transaction of two statements: the lock of the queue's limit row, then the pick
     * (docs/DESIGN.md, "Cluster-wide limits").
     *
     * @throws org.springframework.dao.DuplicateKeyException when another node claimed a row of the same partition key
     *         at the same moment, as {@code ClaimRepository.pick}
     */
    public LimitedPick pickLimited(String queue, Map<String, List<Integer>> machines, int limit, String owner,
            Duration lease, ClusterLimits limits) {
        ClusterLimits.Rate rate = limits.rate();
        int starts = rate == null ? 0 : rate.starts();
        double perMilli = rate == null ? 0 : rate.perMilli();
        Integer concurrency = limits.concurrency();
        return Objects.requireNonNull(limitedPick.execute(status -> {
            planning.hot().sql(lockLimitSql).param("queue", queue).param("starts", starts).update();
            List<ClaimedStep> rows = new ArrayList<>();
            int[] room = new int[1];
            Double[] tokens = new Double[1];
            Long[] executing = new Long[1];
            claims.pick(pickLimitedSql.with(LiteralLimits.bucket(limit)), queue, machines, limit, owner, lease)
                    .param("starts", starts)
                    .param("perMilli", perMilli)
                    .param("concurrency", concurrency == null ? 0 : concurrency)
                    .param("waiterMs", WAITER_LIFETIME.toMillis())
                    .query(rs -> {
                        room[0] = rs.getInt("limit_room");
                        tokens[0] = (Double) rs.getObject("limit_tokens");
                        executing[0] = (Long) rs.getObject("limit_executing");
                        if (rs.getObject("id") != null) {
                            rows.add(ClaimedStep.read(rs, rows.size()));
                        }
                    });
            return new LimitedPick(rows, room[0], tokens[0], executing[0]);
        }));
    }
}
