-- durable schema, version 1.
--
-- Plain SQL for PostgreSQL 12+. Object names are unqualified: run it with search_path set to the schema the
-- engine is configured with (durable.schema, default public), e.g.  SET search_path TO my_schema;
-- The Liquibase changelog next to this file (changelog.xml) applies exactly this file; Flyway users can copy it
-- into their migrations under this name.

-- The life of an instance: runnable -> executing -> (runnable | awaiting_signal | done | failed).
CREATE TYPE durable_status AS ENUM ('runnable', 'executing', 'awaiting_signal', 'done', 'failed');

-- Every claim of a row gets a fresh token from this sequence; writes that end a step are fenced on it.
CREATE SEQUENCE durable_lease_token_seq;

CREATE TABLE durable_instance (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    machine          text             NOT NULL,
    machine_version  integer          NOT NULL,
    step             text             NOT NULL,
    status           durable_status   NOT NULL DEFAULT 'runnable',
    state            jsonb,
    result           jsonb,
    -- the signal name the instance is parked on; kept until the woken step's outcome commits
    awaits           text,
    queue            text             NOT NULL,
    -- lower values are picked first
    priority         smallint         NOT NULL DEFAULT 0,
    -- instances sharing a key never execute at the same time (see durable_instance_partition)
    partition_key    text,
    eligible_at      timestamptz      NOT NULL DEFAULT now(),
    attempt          integer          NOT NULL DEFAULT 0,
    last_error       text,
    -- the node holding the claim, while executing
    lease_owner      text,
    -- the token of the current claim while executing; afterwards the token of the claim whose outcome was
    -- written last (so a retried, ambiguous commit can tell "already applied" from "lease lost");
    -- NULL after a reap or a release
    lease_token      bigint,
    lease_expires_at timestamptz,
    unique_key       text,
    -- the statuses in which this row holds unique_key (an enum array: a generated column needs an immutable
    -- expression, and the enum-to-text cast is not)
    unique_scope     durable_status[] NOT NULL DEFAULT '{runnable,executing,awaiting_signal}',
    unique_guard     text GENERATED ALWAYS AS (CASE WHEN status = ANY (unique_scope) THEN unique_key END) STORED,
    created_at       timestamptz      NOT NULL DEFAULT now(),
    updated_at       timestamptz      NOT NULL DEFAULT now()
);

-- The pick: runnable rows of one queue in priority, eligible_at order. Partial, so terminal rows cost nothing.
CREATE INDEX durable_instance_pick ON durable_instance (queue, priority, eligible_at) WHERE status = 'runnable';

-- The reaper and the heartbeat: executing rows by lease expiry.
CREATE INDEX durable_instance_lease ON durable_instance (lease_expires_at) WHERE status = 'executing';

-- Uniqueness: at most one row holds a unique key within its scope.
CREATE UNIQUE INDEX durable_instance_unique ON durable_instance (unique_guard) WHERE unique_guard IS NOT NULL;

-- Partition keys: at most one executing row per key. The claim itself is the lock; no connection is held.
CREATE UNIQUE INDEX durable_instance_partition ON durable_instance (partition_key)
    WHERE status = 'executing' AND partition_key IS NOT NULL;

-- Operators list parked and failed instances; both sets stay small next to the terminal history.
CREATE INDEX durable_instance_awaiting ON durable_instance (queue, id) WHERE status = 'awaiting_signal';
CREATE INDEX durable_instance_failed ON durable_instance (queue, id) WHERE status = 'failed';

CREATE TABLE durable_signal (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance_id bigint      NOT NULL REFERENCES durable_instance (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    payload     jsonb,
    -- a second signal to the same instance with the same dedup_key is not stored (NULL: no dedup)
    dedup_key   text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- set when a step consumed the signal; a consumed signal with a dedup_key stays as a tombstone so that a
    -- redelivery of it (a webhook sent twice) is still recognised; one without a dedup_key is deleted
    consumed_at timestamptz,
    CONSTRAINT durable_signal_dedup UNIQUE (instance_id, dedup_key)
);

-- An instance's inbox: its signals not yet consumed.
CREATE INDEX durable_signal_inbox ON durable_signal (instance_id, name) WHERE consumed_at IS NULL;
