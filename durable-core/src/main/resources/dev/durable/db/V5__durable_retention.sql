-- durable schema, version 5: retention of ended instances.
-- Applied after V4__durable_schedules.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: the index is built CONCURRENTLY, so a live table keeps taking writes while it is built. An index left
-- INVALID by a failed concurrent build must be dropped by hand before the next attempt
-- (DROP INDEX CONCURRENTLY durable_instance_ended).

-- Ended instances by status and by when they ended (their last update): what the retention sweep of every node reads
-- to delete the oldest first. The predicate names the unfinished statuses, so a terminal status added later is
-- covered without a new index.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_ended ON durable_instance (status, updated_at)
    WHERE status NOT IN ('runnable', 'executing', 'awaiting_signal');
