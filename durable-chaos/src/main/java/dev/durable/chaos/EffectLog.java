package dev.durable.chaos;

import dev.durable.StepContext;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The effect log: one row per execution of a step, written by the step itself in autocommit statements of its own,
 * outside the engine's transaction, so that every execution shows — re-runs after a crash, fenced zombies and all.
 *
 * <p>A claim (lease token) runs its step exactly once (or, on a node that runs next steps inline, a chain of
 * different steps once each), so the token and the step key the row: the start is inserted with
 * {@code ON CONFLICT DO NOTHING} and the end updates it, and both can be retried safely while the database
 * restarts. Times are the database's {@code clock_timestamp()}, one clock for every node.
 */
public class EffectLog {

    /** Logs nothing: for a client that never runs steps. */
    static final EffectLog NONE = new EffectLog() {
        @Override
        void begin(StepContext ctx) {
        }

        @Override
        void end(StepContext ctx, String outcome) {
        }
    };

    static final String DDL = """
            CREATE SCHEMA IF NOT EXISTS chaos;
            CREATE TABLE IF NOT EXISTS chaos.effect (
                token       bigint      NOT NULL,
                instance_id bigint      NOT NULL,
                step        text        NOT NULL,
                attempt     int         NOT NULL,
                node        text        NOT NULL,
                pid         bigint      NOT NULL,
                started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
                ended_at    timestamptz,
                outcome     text,
                PRIMARY KEY (token, step)
            );
            CREATE INDEX IF NOT EXISTS effect_instance ON chaos.effect (instance_id);
            """;

    private static final String BEGIN = """
            INSERT INTO chaos.effect (token, instance_id, step, attempt, node, pid)
            VALUES (:token, :instance, :step, :attempt, :node, :pid)
            ON CONFLICT (token, step) DO NOTHING
            """;

    private static final String END = """
            UPDATE chaos.effect SET ended_at = clock_timestamp(), outcome = :outcome
            WHERE token = :token AND step = :step
            """;

    /** How long a step keeps trying to log while the database is away before it gives up like a crash. */
    private static final Duration GIVE_UP_AFTER = Duration.ofSeconds(60);

    private final JdbcClient jdbc;
    private final String node;
    private final long pid;

    EffectLog(DataSource dataSource, String node, long pid) {
        this.jdbc = JdbcClient.create(dataSource);
        this.node = node;
        this.pid = pid;
    }

    private EffectLog() {
        this.jdbc = null;
        this.node = "";
        this.pid = 0;
    }

    /** The execution of {@code ctx}'s claim begins. */
    void begin(StepContext ctx) throws InterruptedException {
        retrying(() -> jdbc.sql(BEGIN)
                .param("token", ctx.leaseToken())
                .param("instance", ctx.instanceId())
                .param("step", ctx.step())
                .param("attempt", ctx.attempt())
                .param("node", node)
                .param("pid", pid)
                .update());
    }

    /** The execution of {@code ctx}'s claim ends, about to return {@code outcome}. */
    void end(StepContext ctx, String outcome) throws InterruptedException {
        retrying(() -> jdbc.sql(END).param("outcome", outcome).param("token", ctx.leaseToken())
                .param("step", ctx.step()).update());
    }

    /**
     * Runs {@code write} until it succeeds. An interrupt (lease lost, node stopping) ends the wait with
     * {@link InterruptedException}. If the database stays away too long the step dies with an {@link Error}, which
     * the engine treats like a crash: no outcome, the reaper runs the step again.
     */
    private static void retrying(Runnable write) throws InterruptedException {
        long deadline = System.nanoTime() + GIVE_UP_AFTER.toNanos();
        long pause = 50;
        while (true) {
            try {
                write.run();
                return;
            } catch (DataAccessException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new EffectLogUnavailable("The effect log stayed unreachable for " + GIVE_UP_AFTER, e);
                }
                Thread.sleep(pause);
                pause = Math.min(pause * 2, 1000);
            }
        }
    }

    /** The effect log could not be written for a long time: the step ends like a crash. */
    static final class EffectLogUnavailable extends Error {

        EffectLogUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
