-- durable schema, version 4: recurring schedules.
-- Applied after V3__durable_await_deadlines.sql, in the same schema (search_path set to it when run by hand). A new
-- table only: nothing existing is rewritten or locked for long.

-- One row per schedule. Every node running the schedule's machine fires its due ticks; the fire statement moves
-- next_fire_at on only if it still holds the tick the node read, so each tick starts one instance however many
-- nodes race for it.
CREATE TABLE IF NOT EXISTS durable_schedule (
    name          text        PRIMARY KEY,
    machine       text        NOT NULL,
    -- a Spring cron expression (six fields, seconds first, or a macro such as @daily), read in zone
    cron          text        NOT NULL,
    zone          text        NOT NULL,
    miss_policy   text        NOT NULL CHECK (miss_policy IN ('skip', 'run_once', 'run_each')),
    -- the state every tick's instance starts with
    state         jsonb,
    -- declared by the machine's definition (written by every node starting with it) or created through the API
    declared      boolean     NOT NULL DEFAULT false,
    paused        boolean     NOT NULL DEFAULT false,
    -- the next tick to fire; a tick is fired when an instance is started for it (or when its miss policy skips it)
    next_fire_at  timestamptz NOT NULL,
    last_fired_at timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The schedules that will fire, by their next tick: what the schedule sweep of every node reads.
CREATE INDEX IF NOT EXISTS durable_schedule_due ON durable_schedule (next_fire_at) WHERE NOT paused;
