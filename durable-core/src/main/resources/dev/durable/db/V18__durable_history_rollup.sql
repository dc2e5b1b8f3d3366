-- durable schema, version 18: the history's transitions counted by machine and minute.
-- Applied after V17__durable_history_time.sql, in the same schema (search_path set to it when run by hand).
-- Safe to run again (IF NOT EXISTS, ON CONFLICT DO NOTHING). Creates two tables, empty but for one row: the nodes fill
-- them in the background once they run this version, starting from the history's oldest entry.

-- The history entries of each closed minute (by their time, in UTC), counted by the machine of their instance, step,
-- event, next step and the status they left: what a machine's diagram reads for the whole minutes of its window
-- (DurableClient.transitionCounts, docs/DESIGN.md, "Dashboard"), instead of every entry of them. Written by the nodes'
-- history rollup, one node at a time, off the step path: a transition writes nothing here. No key: a minute's rows are
-- inserted once, in the transaction that moves durable_history_rollup past it, and deleted only by age.
CREATE TABLE IF NOT EXISTS durable_history_minute (
    machine   text NOT NULL,
    minute    timestamptz NOT NULL,
    step      text,
    event     text NOT NULL,
    next_step text,
    status    durable_status NOT NULL,
    n         bigint NOT NULL
);

-- A machine's minutes of a window, read by its diagram; and each machine's oldest, deleted by the retention
-- (docs/DESIGN.md, "Retention"). No index by minute alone: the planner read a machine's week through it, filtering out
-- the other machines' rows, three times slower than through this one.
CREATE INDEX IF NOT EXISTS durable_history_minute_machine ON durable_history_minute (machine, minute);

-- How far the minutes are counted: every minute before rolled_until is in durable_history_minute, no later one
-- (minus infinity: none yet). One row, locked by the node that counts the next minutes.
CREATE TABLE IF NOT EXISTS durable_history_rollup (
    one          boolean PRIMARY KEY DEFAULT true CHECK (one),
    rolled_until timestamptz NOT NULL
);
INSERT INTO durable_history_rollup (rolled_until) VALUES ('-infinity') ON CONFLICT DO NOTHING;

UPDATE durable_schema_version SET version = 18 WHERE version < 18;
