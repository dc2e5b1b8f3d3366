-- durable schema, version 12: versions 10 and 11 again, for the databases that ran them numbered the other way.
-- The changelog shipped on 2026-11-25 numbered them 10 the index of in-flight rows and 11 suspension; the one shipped
-- on 2026-11-26 numbers them as they are now. The changelog accepts both checksums of each, so a database migrated
-- by either upgrades, but one whose upgrade stopped between them has only the first of the two, while the changelog
-- takes that number as applied. This version adds whatever of either is missing; on every other database each
-- statement finds what it would create and does nothing.
-- Applied after V11__durable_in_flight.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: the indexes are built CONCURRENTLY. Safe to run again (IF NOT EXISTS); an index left INVALID by a
-- failed concurrent build must be dropped by hand before the next attempt.

-- As in V10__durable_suspension.sql.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS suspension text;

CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_suspended ON durable_instance (queue, id)
    WHERE suspension IS NOT NULL;

-- As in V11__durable_in_flight.sql.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_step
    ON durable_instance (machine, machine_version, step, status, id)
    WHERE status IN ('runnable', 'awaiting_signal', 'failed');
