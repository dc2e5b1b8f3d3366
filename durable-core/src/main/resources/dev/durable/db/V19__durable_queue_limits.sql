-- durable schema, version 19: cluster-wide limits of a queue (docs/DESIGN.md, "Cluster-wide limits").
-- Applied after V18__durable_history_rollup.sql, in the same schema (search_path set to it when run by hand).
-- Safe to run again (IF NOT EXISTS). Creates two tables, empty: a node writes a queue's rows at its first limited
-- pick. A queue without limits never reads nor writes them.

-- One row per limited queue: the lock every limited pick of the queue takes first (a row lock, held for the pick's
-- transaction only), and the queue's token bucket when it has a rate: the tokens left at refilled_at, on the
-- database's clock. The limits themselves are the nodes' settings, bound into each pick.
CREATE TABLE IF NOT EXISTS durable_queue_limit (
    queue       text PRIMARY KEY,
    tokens      double precision NOT NULL,
    refilled_at timestamptz NOT NULL
);

-- The nodes a limit held back lately, by queue: a limited pick leaves room for those that have waited longer than
-- its own node, so that the node nearest to the freed room (its own claims ended) cannot take all of it. seen_at is
-- the node's last held-back pick; an entry not seen for a while is ignored, and deleted by the next pick.
CREATE TABLE IF NOT EXISTS durable_queue_limit_waiter (
    queue   text NOT NULL,
    node    text NOT NULL,
    since   timestamptz NOT NULL,
    seen_at timestamptz NOT NULL,
    PRIMARY KEY (queue, node)
);

UPDATE durable_schema_version SET version = 19 WHERE version < 19;
