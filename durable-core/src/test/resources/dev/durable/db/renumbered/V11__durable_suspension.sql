-- durable schema, version 11: suspended instances (docs/DESIGN.md, "Suspension").
-- Applied after V10__durable_in_flight.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: the index is built CONCURRENTLY, so a live table keeps taking writes while it is built. The new column
-- is nullable, so adding it rewrites nothing. Every statement may run again after a failed attempt (IF NOT EXISTS); an
-- index left INVALID by a failed concurrent build must be dropped by hand before the next attempt
-- (DROP INDEX CONCURRENTLY durable_instance_suspended).

-- Why the engine does not run this instance until an operator retries it (its stored state would lose properties
-- when read by the code deployed, or its upcast failed); NULL when it is not suspended. A suspended instance stays
-- 'runnable', so it keeps its unique key and counts as unfinished for its parent, with eligible_at 'infinity', past
-- the end of every pick's walk of the pick index; the read API shows it with the status 'suspended'.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS suspension text;

-- Operators list the suspended instances; they are few, and no other row is in this index.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_suspended ON durable_instance (queue, id)
    WHERE suspension IS NOT NULL;
