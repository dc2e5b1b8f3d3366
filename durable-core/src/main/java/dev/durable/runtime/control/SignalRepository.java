package dev.durable.runtime.control;

import dev.durable.InstanceStatus;
import dev.durable.SignalResult;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.TransitionRepository;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The SQL of sending a signal, for the {@link DefaultDurableClient}: delivery. (A step's inbox is read by the pick
 * of {@link ClaimRepository}, and its awaited signals are consumed by the {@code next} of
 * {@link TransitionRepository}.)
 *
 * <p>Delivery joins the caller's Spring transaction, if any. It locks an instance row by its key, so it goes through
 * {@link StatementPlanning#hot()} like the pick.
 */
public final class SignalRepository {

    // One statement, in this order:
    // 1. lock the instance row by id, and by id only: a status filter evaluated on a stale snapshot would miss a
    //    park committed a moment ago (docs/DESIGN.md, pitfall P1). The lock waits for a park in progress and returns
    //    the row as the park left it;
    // 2. say whether the row's (machine, version) refuses the signal: it is among the pairs the client found refuse
    //    its name or payload (docs/DESIGN.md, "Declared signals"; two empty arrays when no machine of the node declares
    //    its signals). A refused signal is stored nowhere, wakes nothing, whatever the status and dedup key;
    // 3. store the signal unless the instance is missing, terminal or refuses it, deduplicated on
    //    (instance_id, dedup_key);
    // 4. wake the instance if it is parked on this name (the one in awaits, or one of an await set) and the signal
    //    was stored; a deadline it also had stays, and the woken step, finding the signal, did not time out;
    // 5. for an ended instance, say whether this dedup key reached it before (its tombstone outlives the end), so a
    //    webhook redelivered after the instance finished is answered "deduplicated", not "refused";
    // 6. a woken instance's queue is notified to the other nodes, unless :wakeChannel is null (docs/DESIGN.md,
    //    "Wake-ups").
    // The park takes the same row lock, then re-checks the inbox in a later statement, so whichever of the two
    // comes second sees the other: no wake-up is lost.
    public static final String DELIVER = """
            /* durable: deliver signal */
            WITH target AS (
                SELECT id, status, awaits, awaits_set, queue, machine, machine_version
                FROM {schema}.durable_instance
                WHERE id = :instanceId
                FOR NO KEY UPDATE
            ), checked AS (
                SELECT t.*,
                       EXISTS (SELECT 1
                               FROM unnest(:refusingMachine::text[], :refusingVersion::int[]) AS r (machine, version)
                               WHERE r.machine = t.machine AND r.version = t.machine_version) AS refused
                FROM target t
            ), stored AS (
                INSERT INTO {schema}.durable_signal (instance_id, name, payload, dedup_key, trace_context)
                SELECT t.id, :name, CAST(:payload AS jsonb), :dedupKey, CAST(:trace AS text)
                FROM checked t
                WHERE t.status IN ('runnable', 'executing', 'awaiting_signal') AND NOT t.refused
                ON CONFLICT (instance_id, dedup_key) DO NOTHING
                RETURNING id
            ), woken AS (
                UPDATE {schema}.durable_instance d
                SET status = 'runnable', eligible_at = now(), updated_at = now(),
                    trace_context = CASE WHEN CAST(:trace AS text) IS NULL THEN d.trace_context
                                         ELSE concat_ws(E'\\n', CAST(:trace AS text),
                                                        substring(d.trace_context FROM 'link [^\\n]*')) END
                FROM target t
                WHERE d.id = t.id AND t.status = 'awaiting_signal'
                  AND (t.awaits = :name OR :name = ANY (t.awaits_set))
                  AND EXISTS (SELECT 1 FROM stored)
                RETURNING d.id
            )
            SELECT t.status::text AS status, t.queue, t.machine, t.machine_version, t.refused,
                   EXISTS (SELECT 1 FROM stored) AS stored,
                   EXISTS (SELECT 1 FROM woken) AS woken,
                   EXISTS (SELECT 1 FROM {schema}.durable_signal s
                           WHERE s.instance_id = t.id AND s.dedup_key = :dedupKey) AS seen,
                   CASE WHEN EXISTS (SELECT 1 FROM woken) AND CAST(:wakeChannel AS text) IS NOT NULL
                        THEN pg_notify(:wakeChannel, 'q:' || t.queue) END AS notified
            FROM checked t
            """;

    private final StatementPlanning planning;
    private final String deliverSql;

    public SignalRepository(StatementPlanning planning) {
        this.planning = planning;
        this.deliverSql = planning.qualify(DELIVER);
    }

    /** Delivers one signal in one statement, to an instance whatever its machine declares. */
    public DeliveryReport deliver(long instanceId, String name, @Nullable String payloadJson,
            @Nullable String dedupKey) {
        return deliver(instanceId, name, payloadJson, dedupKey, SignalDeclarations.Check.NONE, null);
    }

    /**
     * Delivers one signal in one statement, refused for an instance of a (machine, version) that {@code check} says
     * refuses it.
     *
     * @param payloadJson the payload as JSON text, or {@code null} for none
     */
    public DeliveryReport deliver(long instanceId, String name, @Nullable String payloadJson,
            @Nullable String dedupKey, SignalDeclarations.Check check, @Nullable String trace) {
        return planning.hot().sql(deliverSql)
                .param("instanceId", instanceId)
                .param("name", name)
                .param("payload", payloadJson)
                .param("dedupKey", dedupKey)
                .param("trace", trace)
                .param("refusingMachine", new SqlArrayValue("text", (Object[]) check.machines()))
                .param("refusingVersion", new SqlArrayValue("int4", (Object[]) check.versions()))
                .param("wakeChannel", planning.wakeChannel())
                .query((rs, i) -> {
                    if (rs.getBoolean("refused")) {
                        return new DeliveryReport(check.refused(instanceId, rs.getString("machine"),
                                rs.getInt("machine_version")), null);
                    }
                    InstanceStatus status = InstanceStatus.fromLabel(rs.getString("status"));
                    SignalResult.Delivery delivery = status.isTerminal()
                            ? rs.getBoolean("seen")
                                    ? SignalResult.Delivery.DEDUPLICATED
                                    : SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE
                            : rs.getBoolean("stored")
                                    ? SignalResult.Delivery.DELIVERED
                                    : SignalResult.Delivery.DEDUPLICATED;
                    return new DeliveryReport(new SignalResult(instanceId, delivery, rs.getBoolean("woken")),
                            rs.getString("queue"));
                })
                .optional()
                .orElseGet(() -> new DeliveryReport(
                        new SignalResult(instanceId, SignalResult.Delivery.REFUSED_UNKNOWN_INSTANCE, false), null));
    }

    /**
     * A delivery's result and the queue of the addressed instance ({@code null} when there is none), so the
     * sender's node can wake its poller.
     */
    public record DeliveryReport(SignalResult result, @Nullable String queue) {
    }
}
