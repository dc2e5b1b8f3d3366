-- durable schema, version 3: awaits with a deadline, and awaits on several signal names.
-- Applied after V2__durable_nodes.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: the index is built CONCURRENTLY, so a live table keeps taking writes while it is built. Every
-- statement may run again after a failed attempt (IF NOT EXISTS); an index left INVALID by a failed concurrent build
-- must be dropped by hand before the next attempt (DROP INDEX CONCURRENTLY durable_instance_deadline).

-- The instant an await's deadline falls on (NULL: none). Set by the park, kept by a retry or a re-execution (the
-- re-run step sees the same deadline), cleared by every other outcome. Nullable without a default: adding it does
-- not rewrite the table.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS deadline timestamptz;

-- Every name of an await on several names (awaits keeps the first); NULL for an await on one.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS awaits_set text[];

-- The parked rows whose deadline will fire, in deadline order: what the deadline sweep of every node reads.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_deadline ON durable_instance (deadline)
    WHERE status = 'awaiting_signal' AND deadline IS NOT NULL;
