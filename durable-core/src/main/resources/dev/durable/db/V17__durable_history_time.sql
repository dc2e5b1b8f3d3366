-- durable schema, version 17: the history by time.
-- Applied after V16__durable_history_patches.sql, in the same schema (search_path set to it when run by hand),
-- outside a transaction: the index is built CONCURRENTLY, so a live history keeps taking writes while it is built.
-- Safe to run again (IF NOT EXISTS); an index left INVALID by a failed concurrent build must be dropped by hand before
-- the next attempt (DROP INDEX CONCURRENTLY durable_history_at).

-- The entries of a window of time, newest last: what a machine's diagram counts (DurableClient.transitionCounts,
-- docs/DESIGN.md, "Dashboard"), reading the window's entries and no other. Entries are written at now(), so new
-- entries land at the index's right edge.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_history_at ON durable_history (at);

UPDATE durable_schema_version SET version = 17 WHERE version < 17;
