-- durable schema, version 7: business keys.
-- Applied after V6__durable_cancel.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: the indexes are built CONCURRENTLY, so a live table keeps taking writes while they are built. Every
-- statement may run again after a failed attempt (IF NOT EXISTS); an index left INVALID by a failed concurrent build
-- must be dropped by hand before the next attempt (DROP INDEX CONCURRENTLY durable_instance_unique_key, or
-- durable_instance_correlation_key).

-- A key several instances may share, so that they can be found together: the instances of one business object (an
-- order and its follow-ups), a parent and its children. Set at the start, never changed. Nullable without a default:
-- adding it does not rewrite the table.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS correlation_key text;

-- Every instance that carried a unique key, the one holding it now (if any) and those that ended: the look-up by
-- unique key, in id order. Partial, so instances without a key cost it nothing.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_unique_key ON durable_instance (unique_key, id)
    WHERE unique_key IS NOT NULL;

-- The instances sharing a correlation key, in id order. Partial like the one above.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_correlation_key ON durable_instance (correlation_key, id)
    WHERE correlation_key IS NOT NULL;
