-- durable schema, version 13: the counts by machine and by what an instance waits for, read from an index.
-- Applied after V12__durable_suspension_and_in_flight_complete.sql, in the same schema (search_path set to it when run
-- by hand), outside a transaction: the index is built CONCURRENTLY, so a live table keeps taking writes while it is
-- built. Safe to run again: the build is skipped if its index exists, the drop if the old one is gone; an index left
-- INVALID by a failed concurrent build must be dropped by hand before the next attempt
-- (DROP INDEX CONCURRENTLY durable_instance_step_v13).

-- durable_instance_step of version 11 again, with the columns that say what each of its rows waits for: its queue,
-- when it falls due, its await deadline and its join (docs/DESIGN.md, "Counting instances"). The live counts, which
-- every node's metrics read, then read this index alone (an index-only scan), however many ended rows the table holds
-- and wherever its unfinished rows lie in it. The key is unchanged, so what is in flight reads it as before. Widening
-- the index costs each entry about 27 bytes; a second index would have cost every step an entry of its own.
-- Built beside the old one, which is then dropped, and takes its name: the index is never missing meanwhile.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_step_v13
    ON durable_instance (machine, machine_version, step, status, id)
    INCLUDE (queue, eligible_at, deadline, awaits_children)
    WHERE status IN ('runnable', 'awaiting_signal', 'failed');

DROP INDEX CONCURRENTLY IF EXISTS durable_instance_step;

ALTER INDEX durable_instance_step_v13 RENAME TO durable_instance_step;
