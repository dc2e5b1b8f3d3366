package dev.durable.runtime.queue;

import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementVariants;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL that ends a step: the {@link Committer} writes a batch of {@link Transition}s here, in as few statements as
 * their kinds need — {@code next}, the inline {@code continue}, {@code retry}, the lock and the park of an
 * {@code await}, and a terminal {@code done} or {@code stop} followed by the clearing of its inbox and the count of
 * ended children at their parents; before them the children the outcomes start (these two through the
 * {@link FamilyRepository}) — and, after an ambiguous commit, asks which of them an earlier attempt already wrote. Each
 * write records its history in the same statement (docs/DESIGN.md, "History").
 *
 * <p>Every write is fenced: {@code d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token}. The
 * fence is a per-claim token, not a node id, because a node can re-pick its own reaped row (docs/DESIGN.md, "Fencing"
 * and pitfall P3); a write that matches no row lost its lease and changes nothing. The status is compared as text so
 * that it cannot match the predicate of the partial index of leases ({@code WHERE status = 'executing'}): with it,
 * a cached generic plan (which expects ten rows from {@code unnest}) walked the executing rows through that index
 * and, for each, scanned the whole batch ({@code d.id = ANY (:id)} beside the join led the planner there too), so an
 * outcome statement of 300 rows took 67 ms instead of 12, growing with the square of the batch (pitfall P19). Without
 * both, each row of the batch is reached by its primary key: the cost grows with the batch, not the table. In each
 * statement, a NULL state (the step kept its state) leaves the stored one as it is, and so do a NULL version and a
 * NULL renamed step (only a row stored by older code gets them, written by the outcome: docs/DESIGN.md, "Upcasting").
 *
 * <p>The writes run on the committer's thread, which carries no transaction: a batch of one statement commits on
 * its own, a batch of several runs in a transaction of its own. All go through {@link StatementPlanning#hot()}; the
 * statements are visible (to the runtime only: this package is internal) so that {@code QueryPlanTest} checks plans.
 */
public final class TransitionRepository {

    // next: attempt 0, runnable now, awaits cleared; consumes exactly the awaited signals handed to the step (the
    // CTEs kept and dropped): a signal with a dedup key becomes a tombstone (consumed_at set) so that a redelivery
    // of it is still deduplicated; one without is deleted. Driven by the bound ids, not by a subquery
    // (docs/DESIGN.md, pitfall P11).
    public static final String APPLY_NEXT = """
            /* durable: next */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :step::text[], :state::text[],
                                     :delayMs::bigint[], :ranStep::text[], :attempt::int[], :durationMs::bigint[],
                                     :version::int[], :at::text[], :patch::text[], :upcastPatch::text[])
                    AS o(id, token, step, state, delay_ms, ran_step, attempt, duration_ms, version, at, patch,
                         upcast_patch)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', step = o.step,
                    state = coalesce(o.state::jsonb, d.state), machine_version = coalesce(o.version, d.machine_version),
                    attempt = 0, awaits = NULL, awaits_set = NULL, deadline = NULL, awaits_children = NULL,
                    eligible_at = coalesce(o.at::timestamptz, now() + o.delay_ms * interval '1 millisecond'),
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id
            ), kept AS (
                UPDATE {schema}.durable_signal s SET consumed_at = now()
                WHERE s.id = ANY (:consumedSignal::bigint[]) AND s.dedup_key IS NOT NULL
                  AND s.instance_id IN (SELECT id FROM applied)
            ), dropped AS (
                DELETE FROM {schema}.durable_signal s
                WHERE s.id = ANY (:consumedSignal::bigint[]) AND s.dedup_key IS NULL
                  AND s.instance_id IN (SELECT id FROM applied)
            ), recorded AS (
                INSERT INTO {schema}.durable_history
                    (instance_id, step, event, next_step, status, attempt, node, lease_token, duration_ms, signals,
                     patch, upcast_patch)
                SELECT o.id, o.ran_step, 'next', o.step, 'runnable', o.attempt, :node, o.token, o.duration_ms,
                       (SELECT array_agg(c.signal_id ORDER BY c.signal_id)
                        FROM unnest(:consumedInstance::bigint[], :consumedSignal::bigint[]) AS c(instance_id, signal_id)
                        WHERE c.instance_id = o.id), o.patch::jsonb, o.upcast_patch::jsonb
                FROM o JOIN applied a ON a.id = o.id
                WHERE CAST(:history AS boolean)
            )
            SELECT id FROM applied
            """;

    // next, keeping the claim (inline execution): like APPLY_NEXT, consuming the same signals, but the row stays
    // executing under the same token with a fresh lease, and everything the next step needs comes back in the pick's
    // columns (ClaimRepository.PICK, read by ClaimedStep.read): the inbox as it is now minus the signals this statement
    // consumes (their delete is not visible to the statement's own snapshot). The row a continuation leaves still
    // matches its fence, so a continuation written again after an ambiguous commit is applied again, whether or not the
    // first attempt committed: it writes the same values, and consumes signals already consumed. Only its history entry
    // would be new: then its variant "continue again" runs, with :continuesBefore holding the number of continuations
    // of the claim committed before this one, and records the entry only if the history holds no more continuations of
    // the claim than that (docs/DESIGN.md, "Fencing", ambiguous commits): the lines marked for the variant continue
    // again. The ordinary variant has no such look at the history: its estimated cost (a subquery per row) put the
    // statement over PostgreSQL's jit_above_cost, and every continuation batch spent about 60 ms compiling itself
    // (pitfall P19).
    public static final String APPLY_CONTINUE = """
            /* durable: continue */ -- in: continue
            /* durable: continue again */ -- in: continue again
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :step::text[], :state::text[],
                                     :ranStep::text[], :attempt::int[], :durationMs::bigint[], :version::int[],
                                     :continuesBefore::int[], :patch::text[], :upcastPatch::text[])
                    AS o(id, token, step, state, ran_step, attempt, duration_ms, version, continues_before, patch,
                         upcast_patch)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET step = o.step,
                    state = coalesce(o.state::jsonb, d.state), machine_version = coalesce(o.version, d.machine_version),
                    attempt = 0, awaits = NULL, awaits_set = NULL, deadline = NULL, awaits_children = NULL,
                    eligible_at = now(),
                    lease_expires_at = now() + :leaseMs * interval '1 millisecond', updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id, d.machine, d.machine_version, d.step, d.state, d.awaits, d.awaits_set, d.attempt,
                          d.lease_token, d.queue, d.partition_key, d.parent_id, d.children_started,
                          d.children_ended, d.awaits_children, d.trace_context
            ), kept AS (
                UPDATE {schema}.durable_signal s SET consumed_at = now()
                WHERE s.id = ANY (:consumedSignal::bigint[]) AND s.dedup_key IS NOT NULL
                  AND s.instance_id IN (SELECT id FROM applied)
            ), dropped AS (
                DELETE FROM {schema}.durable_signal s
                WHERE s.id = ANY (:consumedSignal::bigint[]) AND s.dedup_key IS NULL
                  AND s.instance_id IN (SELECT id FROM applied)
            ), recorded AS (
                INSERT INTO {schema}.durable_history
                    (instance_id, step, event, next_step, status, attempt, node, lease_token, duration_ms, signals,
                     patch, upcast_patch)
                SELECT o.id, o.ran_step, 'next', o.step, 'executing', o.attempt, :node, o.token, o.duration_ms,
                       (SELECT array_agg(c.signal_id ORDER BY c.signal_id)
                        FROM unnest(:consumedInstance::bigint[], :consumedSignal::bigint[]) AS c(instance_id, signal_id)
                        WHERE c.instance_id = o.id), o.patch::jsonb, o.upcast_patch::jsonb
                FROM o JOIN applied a ON a.id = o.id
                WHERE CAST(:history AS boolean)
                  AND CASE WHEN o.continues_before IS NULL THEN true -- in: continue again
                           ELSE (SELECT count(*) FROM {schema}.durable_history h -- in: continue again
                                 WHERE h.instance_id = o.id AND h.lease_token = o.token -- in: continue again
                                   AND h.event = 'next' AND h.status = 'executing') -- in: continue again
                                <= o.continues_before END -- in: continue again
            )
            SELECT c.id, c.machine, c.machine_version, c.step, c.state::text AS state, c.awaits, c.awaits_set,
                   false AS deadline_passed, c.attempt, c.lease_token, c.queue, c.partition_key,
                   c.parent_id, c.children_started, c.children_ended, c.awaits_children, c.trace_context,
                   inbox.ids AS signal_ids, inbox.names AS signal_names, inbox.payloads AS signal_payloads,
                   inbox.dedup_keys AS signal_dedup_keys, inbox.created AS signal_created
            FROM applied c
            LEFT JOIN LATERAL (
                SELECT array_agg(s.id ORDER BY s.id) AS ids,
                       array_agg(s.name ORDER BY s.id) AS names,
                       array_agg(s.payload::text ORDER BY s.id) AS payloads,
                       array_agg(s.dedup_key ORDER BY s.id) AS dedup_keys,
                       array_agg(s.created_at ORDER BY s.id) AS created
                FROM {schema}.durable_signal s
                WHERE s.instance_id = c.id AND s.consumed_at IS NULL
                  AND s.id <> ALL (:consumedSignal::bigint[])) inbox ON true
            """;

    /** {@link #APPLY_CONTINUE}'s two texts, by name: {@code continue} and {@code continue again}. */
    public static final Map<String, String> CONTINUE = StatementVariants.render(APPLY_CONTINUE, "continue",
            "continue again");

    // retry: same step, attempt + 1, runnable after the delay; consumes nothing and keeps awaits, the deadline and
    // the join on children, so the re-run step sees the same signals, the same timeout and the same join.
    // A suspension (docs/DESIGN.md, "Suspension") rides in the same statement: a row whose step was not run goes back
    // to runnable with its attempt, state, version and step as stored, eligible at 'infinity' (past the end of every
    // pick's walk of the pick index, so never picked) and its reason in suspension and last_error, until an operator
    // retries it. A rare write, so it costs no statement of its own in a batch.
    public static final String APPLY_RETRY = """
            /* durable: retry */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :state::text[], :delayMs::bigint[],
                                     :error::text[], :ranStep::text[], :attempt::int[], :durationMs::bigint[],
                                     :version::int[], :renamed::text[], :suspension::text[], :trace::text[],
                                     :patch::text[], :upcastPatch::text[])
                    AS o(id, token, state, delay_ms, error, ran_step, attempt, duration_ms, version, renamed,
                         suspension, trace, patch, upcast_patch)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable',
                    state = coalesce(o.state::jsonb, d.state), machine_version = coalesce(o.version, d.machine_version),
                    step = coalesce(o.renamed, d.step),
                    attempt = CASE WHEN o.suspension IS NULL THEN d.attempt + 1 ELSE d.attempt END,
                    eligible_at = CASE WHEN o.suspension IS NULL THEN now() + o.delay_ms * interval '1 millisecond'
                                       ELSE 'infinity' END,
                    suspension = o.suspension,
                    last_error = coalesce(o.error, d.last_error), trace_context = coalesce(o.trace, d.trace_context),
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id
            ), recorded AS (
                INSERT INTO {schema}.durable_history
                    (instance_id, step, event, status, attempt, node, lease_token, duration_ms, error, patch,
                     upcast_patch)
                SELECT o.id, o.ran_step, CASE WHEN o.suspension IS NULL THEN 'retry' ELSE 'suspend' END, 'runnable',
                       o.attempt, :node, o.token, o.duration_ms, o.error, o.patch::jsonb, o.upcast_patch::jsonb
                FROM o JOIN applied a ON a.id = o.id
                WHERE CAST(:history AS boolean)
            )
            SELECT id FROM applied
            """;

    // The first statement of a batch that parks or starts children: take the row locks of those claims, in id order,
    // and say which still hold their claim (the others are fenced off and start no children). A signal delivery and a
    // child's end take the same lock, so from here on either they committed before (and the park, a later statement
    // with a fresh snapshot, sees the signal or the ended child) or they wait for this transaction (and then find the
    // row parked and wake it): no wake-up is lost (docs/DESIGN.md, "Signals and wake-ups" and "Children"; pitfall
    // P1). Locked rows come back as they are now, after any write that committed while this statement waited.
    public static final String LOCK_CLAIMS = """
            /* durable: lock claims */
            SELECT d.id, (d.status = 'executing' AND d.lease_token = o.token) AS claimed
            FROM {schema}.durable_instance d
            JOIN unnest(:id::bigint[], :token::bigint[]) AS o(id, token) ON d.id = o.id
            WHERE d.id = ANY (:id::bigint[])
            ORDER BY d.id
            FOR NO KEY UPDATE OF d
            """;

    // await, after LOCK_CLAIMS: park on the awaited names (awaits holds the first, awaits_set all of them when there
    // are several; an array per row cannot be a column of unnest, so the sets come as (instance, name) pairs, like the
    // signals already seen), with the deadline, if any, on the database's clock; unless a matching signal is already in
    // the inbox or the deadline is already due, in which case the row goes straight back to runnable. Signals already
    // handed to the step as awaited do not count: a step that re-awaits after seeing its signal would otherwise spin
    // (docs/DESIGN.md, pitfall P2).
    public static final String APPLY_AWAIT = """
            /* durable: await park */
            WITH o AS (
                SELECT o.id, o.token, o.awaits, o.state, o.join_on, o.children_seen, o.ran_step, o.attempt,
                       o.duration_ms, o.version, o.renamed, o.trace, o.patch, o.upcast_patch,
                       coalesce(o.at::timestamptz, now() + o.timeout_ms * interval '1 millisecond') AS deadline,
                       (SELECT array_agg(n.name ORDER BY n.nth)
                        FROM unnest(:setInstance::bigint[], :setName::text[]) WITH ORDINALITY
                            AS n(instance_id, name, nth)
                        WHERE n.instance_id = o.id) AS awaits_set
                FROM unnest(:id::bigint[], :token::bigint[], :awaits::text[], :timeoutMs::bigint[], :state::text[],
                            :joinOn::text[], :childrenSeen::int[], :ranStep::text[], :attempt::int[], :at::text[],
                            :durationMs::bigint[], :version::int[], :renamed::text[], :trace::text[],
                            :patch::text[], :upcastPatch::text[])
                    AS o(id, token, awaits, timeout_ms, state, join_on, children_seen, ran_step, attempt, at,
                         duration_ms, version, renamed, trace, patch, upcast_patch)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET status = CASE WHEN o.deadline <= now()
                                  OR d.children_ended >= CASE o.join_on
                                      WHEN 'all' THEN d.children_started
                                      WHEN 'any' THEN least(o.children_seen + 1, d.children_started) END
                                  OR EXISTS (
                                      SELECT 1 FROM {schema}.durable_signal s
                                      WHERE s.instance_id = d.id AND s.consumed_at IS NULL
                                        AND (s.name = o.awaits OR s.name = ANY (o.awaits_set))
                                        AND NOT EXISTS (
                                            SELECT 1 FROM unnest(:seenInstance::bigint[], :seenSignal::bigint[])
                                                          AS seen(instance_id, signal_id)
                                            WHERE seen.instance_id = d.id AND seen.signal_id = s.id))
                                  THEN 'runnable'::{schema}.durable_status
                                  ELSE 'awaiting_signal'::{schema}.durable_status END,
                    awaits = o.awaits, awaits_set = o.awaits_set, deadline = o.deadline,
                    awaits_children = CASE o.join_on
                                          WHEN 'all' THEN d.children_started
                                          WHEN 'any' THEN least(o.children_seen + 1, d.children_started) END,
                    state = coalesce(o.state::jsonb, d.state), machine_version = coalesce(o.version, d.machine_version),
                    step = coalesce(o.renamed, d.step), trace_context = coalesce(o.trace, d.trace_context),
                    eligible_at = now(), lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id, d.status
            ), recorded AS (
                INSERT INTO {schema}.durable_history
                    (instance_id, step, event, status, attempt, node, lease_token, duration_ms, patch, upcast_patch)
                SELECT o.id, o.ran_step, 'await', a.status, o.attempt, :node, o.token, o.duration_ms,
                       o.patch::jsonb, o.upcast_patch::jsonb
                FROM o JOIN applied a ON a.id = o.id
                WHERE CAST(:history AS boolean)
            )
            SELECT id FROM applied
            """;

    // done / failed. The inbox is cleared by the next statement, in the same transaction but with a fresh snapshot,
    // so a signal committed while this one waited for the row lock is cleared too; an ended child is counted by its
    // parent in one more (CHILDREN_ENDED).
    public static final String APPLY_TERMINAL = """
            /* durable: terminal */
            WITH o AS (
                SELECT * FROM unnest(:id::bigint[], :token::bigint[], :status::text[], :result::text[],
                                     :error::text[], :ranStep::text[], :attempt::int[], :durationMs::bigint[],
                                     :version::int[], :renamed::text[], :state::text[], :upcastPatch::text[])
                    AS o(id, token, status, result, error, ran_step, attempt, duration_ms, version, renamed, state,
                         upcast_patch)
            ), applied AS (
                UPDATE {schema}.durable_instance d
                SET status = o.status::{schema}.durable_status,
                    result = o.result::jsonb,
                    state = coalesce(o.state::jsonb, d.state), machine_version = coalesce(o.version, d.machine_version),
                    step = coalesce(o.renamed, d.step),
                    last_error = CASE WHEN o.status = 'failed' THEN o.error ELSE d.last_error END,
                    awaits = NULL, awaits_set = NULL, deadline = NULL, awaits_children = NULL,
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                FROM o
                WHERE d.id = o.id AND d.status::text = 'executing' AND d.lease_token = o.token
                RETURNING d.id, d.parent_id
            ), recorded AS (
                INSERT INTO {schema}.durable_history
                    (instance_id, step, event, status, attempt, node, lease_token, duration_ms, error, upcast_patch)
                SELECT o.id, o.ran_step, CASE o.status WHEN 'done' THEN 'done' ELSE 'stop' END,
                       o.status::{schema}.durable_status, o.attempt, :node, o.token, o.duration_ms,
                       CASE WHEN o.status = 'failed' THEN o.error END, o.upcast_patch::jsonb
                FROM o JOIN applied a ON a.id = o.id
                WHERE CAST(:history AS boolean)
            )
            SELECT id, parent_id FROM applied
            """;

    // After an ambiguous commit (the connection dropped after COMMIT was sent) a retried write that matches no row
    // asks this: a row that is no longer executing but still carries the claim's token was written by this claim.
    private static final String ALREADY_WRITTEN = """
            /* durable: already written */
            SELECT d.id
            FROM {schema}.durable_instance d
            JOIN unnest(:id::bigint[], :token::bigint[]) AS o(id, token) ON d.id = o.id
            WHERE d.id = ANY (:id::bigint[]) AND d.lease_token = o.token AND d.status <> 'executing'
            """;

    private final StatementPlanning planning;
    private final History history;
    private final TransactionTemplate ownTransaction;
    private final FamilyRepository family;
    private final String applyNextSql;
    private final String applyContinueSql;
    private final String applyContinueAgainSql;
    private final String applyRetrySql;
    private final String lockClaimsSql;
    private final String applyAwaitSql;
    private final String applyTerminalSql;
    private final String alreadyWrittenSql;

    public TransitionRepository(DataSource dataSource, StatementPlanning planning, History history) {
        this.planning = planning;
        this.history = history;
        this.ownTransaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.family = new FamilyRepository(planning);
        this.applyNextSql = planning.qualify(APPLY_NEXT);
        this.applyContinueSql = planning.qualify(CONTINUE.get("continue"));
        this.applyContinueAgainSql = planning.qualify(CONTINUE.get("continue again"));
        this.applyRetrySql = planning.qualify(APPLY_RETRY);
        this.lockClaimsSql = planning.qualify(LOCK_CLAIMS);
        this.applyAwaitSql = planning.qualify(APPLY_AWAIT);
        this.applyTerminalSql = planning.qualify(APPLY_TERMINAL);
        this.alreadyWrittenSql = planning.qualify(ALREADY_WRITTEN);
    }

    /**
     * Writes a batch of transitions, each fenced on its claim, in as few statements as their kinds need (one
     * statement and no explicit transaction for a batch of a single kind among {@code next}, {@code retry} and
     * {@code continue}).
     *
     * @param lease                the lease a {@code continue} renews
     * @param afterAmbiguousCommit whether an earlier attempt at this very batch may have committed; transitions that
     *                             match no row are then checked for having been written by that attempt
     */
    public Applied apply(List<Transition> transitions, Duration lease, boolean afterAmbiguousCommit) {
        Map<Statement, List<Transition>> byKind = new TreeMap<>();
        for (Transition transition : transitions) {
            byKind.computeIfAbsent(Statement.of(transition), kind -> new ArrayList<>()).add(transition);
        }
        boolean singleStatement = byKind.size() == 1 && !byKind.containsKey(Statement.AWAIT)
                && !byKind.containsKey(Statement.TERMINAL)
                && transitions.stream().allMatch(transition -> transition.children().isEmpty());
        Applied result = singleStatement ? applyByKind(byKind, lease, afterAmbiguousCommit)
                : Objects.requireNonNull(ownTransaction.execute(status -> applyByKind(byKind, lease,
                        afterAmbiguousCommit)));
        if (afterAmbiguousCommit && result.applied().size() < transitions.size()) {
            Set<Long> applied = result.applied();
            List<Transition> unmatched = transitions.stream()
                    .filter(transition -> !applied.contains(transition.id()))
                    .toList();
            applied.addAll(onClaims(alreadyWrittenSql, unmatched).query(Long.class).list());
        }
        return result;
    }

    /** Which of the instances {@code ids} are cancelled: {@link FamilyRepository#cancelledAmong}. */
    public Set<Long> cancelledAmong(Collection<Long> ids) {
        return family.cancelledAmong(ids);
    }

    /** Writes a batch of transitions that renews no lease (no {@code continue} in it). */
    public Applied apply(List<Transition> transitions, boolean afterAmbiguousCommit) {
        return apply(transitions, Duration.ZERO, afterAmbiguousCommit);
    }

    /**
     * What a batch of transitions did.
     *
     * @param applied   the ids whose transition is (now or already) written; the others lost their lease
     * @param continued for each applied {@code continue}, the claimed row of its next step
     * @param newWork   the queues that have work to pick now: those of the children started, and of the parents
     *                  woken because their children ended
     */
    public record Applied(Set<Long> applied, Map<Long, ClaimedStep> continued, Set<String> newWork) {
    }

    /** The statement that writes a transition, in the order a batch runs them. */
    private enum Statement {
        NEXT, CONTINUE, RETRY, AWAIT, TERMINAL;

        static Statement of(Transition transition) {
            return switch (transition.kind()) {
                case NEXT -> transition.continues() ? CONTINUE : NEXT;
                case RETRY -> RETRY;
                case AWAIT -> AWAIT;
                case DONE, STOP -> TERMINAL;
            };
        }
    }

    private Applied applyByKind(Map<Statement, List<Transition>> byKind, Duration lease, boolean afterAmbiguousCommit) {
        Set<Long> applied = new HashSet<>();
        Map<Long, ClaimedStep> continued = new HashMap<>();
        Set<String> newWork = new HashSet<>();
        List<Transition> locked = byKind.values().stream().flatMap(List::stream)
                .filter(transition -> transition.kind() == Outcome.Kind.AWAIT || !transition.children().isEmpty())
                .toList();
        if (!locked.isEmpty()) {
            Set<Long> claimed = new HashSet<>();
            onClaims(lockClaimsSql, locked).query(rs -> {
                if (rs.getBoolean("claimed")) {
                    claimed.add(rs.getLong("id"));
                }
            });
            List<Transition> parents = locked.stream()
                    .filter(transition -> !transition.children().isEmpty() && claimed.contains(transition.id()))
                    .toList();
            if (!parents.isEmpty()) {
                newWork.addAll(family.startChildren(parents));
            }
        }
        List<Transition> terminal = new ArrayList<>();
        byKind.forEach((kind, batch) -> {
            switch (kind) {
                case NEXT -> applied.addAll(applyNext(batch));
                case CONTINUE -> applyContinue(batch, lease, afterAmbiguousCommit).forEach(step -> {
                    applied.add(step.id());
                    continued.put(step.id(), step);
                });
                case RETRY -> applied.addAll(applyRetry(batch));
                case AWAIT -> applied.addAll(applyAwait(batch));
                case TERMINAL -> terminal.addAll(batch);
            }
        });
        if (!terminal.isEmpty()) {
            List<Long> ended = new ArrayList<>();
            List<Long> parents = new ArrayList<>();
            onClaims(applyTerminalSql, terminal)
                    .param("status", column(terminal, "text", transition -> transition.kind() == Outcome.Kind.DONE
                            ? InstanceStatus.DONE.label() : InstanceStatus.FAILED.label()))
                    .param("result", column(terminal, "text", Transition::resultJson))
                    .param("error", column(terminal, "text", Transition::error))
                    .param("state", column(terminal, "text", Transition::storedState))
                    .query(rs -> {
                        ended.add(rs.getLong("id"));
                        long parent = rs.getLong("parent_id");
                        if (!rs.wasNull()) {
                            parents.add(parent);
                        }
                    });
            applied.addAll(ended);
            if (!ended.isEmpty()) {
                family.clearInboxes(ended);
            }
            if (!parents.isEmpty()) {
                newWork.addAll(family.childrenEnded(parents));
            }
        }
        return new Applied(applied, continued, newWork);
    }

    private List<Long> applyNext(List<Transition> batch) {
        return movingOn(applyNextSql, batch)
                .param("delayMs", column(batch, "int8", Transition::delayMillis))
                .param("at", column(batch, "text", t -> Objects.toString(t.at(), null)))
                .query(Long.class).list();
    }

    /**
     * @param afterAmbiguousCommit whether an earlier attempt may have committed these continuations: each then
     *                             records its history entry only if that attempt did not
     */
    private List<ClaimedStep> applyContinue(List<Transition> batch, Duration lease, boolean afterAmbiguousCommit) {
        return movingOn(afterAmbiguousCommit ? applyContinueAgainSql : applyContinueSql, batch)
                .param("leaseMs", lease.toMillis())
                .param("continuesBefore", column(batch, "int4", transition -> afterAmbiguousCommit
                        ? transition.continuesBefore() : null))
                .query(ClaimedStep::read).list();
    }

    /**
     * A next or a continue: the step to go on with, the state, and the awaited signals to consume, as
     * (instance, signal) pairs.
     */
    private JdbcClient.StatementSpec movingOn(String sql, List<Transition> batch) {
        List<Object> consumedInstance = new ArrayList<>();
        List<Object> consumedSignal = new ArrayList<>();
        for (Transition transition : batch) {
            for (Long signal : transition.awaitedIds()) {
                consumedInstance.add(transition.id());
                consumedSignal.add(signal);
            }
        }
        return onClaims(sql, batch)
                .param("step", column(batch, "text", Transition::step))
                .param("state", column(batch, "text", Transition::storedState))
                .param("consumedInstance", new SqlArrayValue("int8", consumedInstance.toArray()))
                .param("consumedSignal", new SqlArrayValue("int8", consumedSignal.toArray()));
    }

    private List<Long> applyRetry(List<Transition> batch) {
        return onClaims(applyRetrySql, batch)
                .param("state", column(batch, "text", Transition::storedState))
                .param("delayMs", column(batch, "int8", Transition::delayMillis))
                .param("error", column(batch, "text", Transition::error))
                .param("suspension", column(batch, "text", Transition::suspension))
                .param("trace", column(batch, "text", transition -> transition.run().traceLink()))
                .query(Long.class).list();
    }

    private List<Long> applyAwait(List<Transition> batch) {
        List<Object> seenInstance = new ArrayList<>();
        List<Object> seenSignal = new ArrayList<>();
        List<Object> setInstance = new ArrayList<>();
        List<Object> setName = new ArrayList<>();
        for (Transition transition : batch) {
            for (Long signal : transition.awaitedIds()) {
                seenInstance.add(transition.id());
                seenSignal.add(signal);
            }
            if (transition.awaits().size() > 1) {
                for (String name : transition.awaits()) {
                    setInstance.add(transition.id());
                    setName.add(name);
                }
            }
        }
        return onClaims(applyAwaitSql, batch)
                .param("awaits", column(batch, "text", Transition::firstAwaited))
                .param("timeoutMs", column(batch, "int8", Transition::timeoutMillis))
                .param("at", column(batch, "text", t -> Objects.toString(t.at(), null)))
                .param("joinOn", column(batch, "text", transition -> transition.join() == null ? null
                        : transition.join().name().toLowerCase(Locale.ROOT)))
                .param("childrenSeen", column(batch, "int4", Transition::childrenSeen))
                .param("state", column(batch, "text", Transition::storedState))
                .param("seenInstance", new SqlArrayValue("int8", seenInstance.toArray()))
                .param("seenSignal", new SqlArrayValue("int8", seenSignal.toArray()))
                .param("setInstance", new SqlArrayValue("int8", setInstance.toArray()))
                .param("setName", new SqlArrayValue("text", setName.toArray()))
                .param("trace", column(batch, "text", transition -> transition.run().traceLink()))
                .query(Long.class).list();
    }

    /**
     * A hot statement with the claims of {@code batch} bound as its {@code :id} and {@code :token} arrays, the rows'
     * upgrades ({@code :version}, {@code :renamed}: NULL keeps the row's; docs/DESIGN.md, "Upcasting"), what history
     * rows record (runs: {@code :ranStep}, {@code :attempt}, {@code :durationMs}; the state's {@code :patch} and
     * {@code :upcastPatch}), whether to record ({@code :history}), the writer ({@code :node}); each binds what it uses.
     */
    private JdbcClient.StatementSpec onClaims(String sql, List<Transition> batch) {
        return planning.hot().sql(sql)
                .param("id", column(batch, "int8", Transition::id))
                .param("token", column(batch, "int8", transition -> transition.claim().leaseToken()))
                .param("version", column(batch, "int4", Transition::upgradedVersion))
                .param("renamed", column(batch, "text", Transition::renamedStep))
                .param("ranStep", column(batch, "text", transition -> transition.run().step()))
                .param("attempt", column(batch, "int4", transition -> transition.run().attempt()))
                .param("durationMs", column(batch, "int8", transition -> transition.run().durationMillis()))
                .param("patch", column(batch, "text", Transition::patch))
                .param("upcastPatch", column(batch, "text", Transition::upcastPatch))
                .param("history", history.recorded())
                .param("node", history.node());
    }

    private static SqlArrayValue column(List<Transition> batch, String type,
            Function<Transition, @Nullable Object> value) {
        return new SqlArrayValue(type, batch.stream().map(value).toArray());
    }
}
