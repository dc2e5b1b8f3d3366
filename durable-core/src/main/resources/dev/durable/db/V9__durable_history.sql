-- durable schema, version 9: the history of every instance's transitions.
-- Applied after V8__durable_children.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction, like the versions that build an index on a live table (here the table is new and empty, so the index
-- costs nothing; CONCURRENTLY keeps the changeset's shape uniform). Safe to run again (IF NOT EXISTS).

-- One row per committed transition of an instance, written in the transaction that commits it (docs/DESIGN.md,
-- "History"): a step's outcome, a cancel, an operator's retry, and the claims that ended without an outcome (reaped,
-- released at shutdown or by a later start, handed back after an Error). No foreign key, for the same reason as
-- durable_instance.parent_id: retention deletes an instance's history in the statement that deletes the instance.
CREATE TABLE IF NOT EXISTS durable_history (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance_id bigint NOT NULL,
    -- the step that ran, or the step the instance was at when it was cancelled, retried, reaped or released
    step        text,
    -- what happened: next, retry, await, done, stop, cancel, retry_failed, reap, release, crash
    event       text NOT NULL,
    -- the step a next moved to
    next_step   text,
    -- the status the transition left
    status      durable_status NOT NULL,
    -- the attempt of the run that ended (for a cancel or an operator's retry: the attempt the instance was at)
    attempt     integer NOT NULL,
    -- the node that wrote the transition, and the token of the claim it ended (NULL for an unclaimed instance)
    node        text,
    lease_token bigint,
    at          timestamptz NOT NULL DEFAULT now(),
    -- how long the step ran, as its node measured it (NULL when no step ran)
    duration_ms bigint,
    -- the failure behind a retry, a stop's reason, a cancel's reason, why a claim ended without an outcome
    error       text,
    -- the signals a next consumed
    signals     bigint[]
);

-- An instance's history in order: read by the client and the actuator, deleted with the instance by retention.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_history_instance ON durable_history (instance_id, id);
