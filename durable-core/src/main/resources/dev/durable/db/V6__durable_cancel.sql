-- durable schema, version 6: cancelled instances.
--
-- Applied after V5__durable_retention.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: a value added to an enum cannot be used by the transaction that adds it, and PostgreSQL before 12
-- refuses ALTER TYPE ... ADD VALUE in a transaction block altogether. Safe to run again (IF NOT EXISTS). The type is
-- not rewritten and no row is touched, so a live table keeps taking writes.

-- An instance an operator or the application stopped: terminal, like done and failed. The partial indexes that name
-- the unfinished statuses (durable_instance_ended) cover it without a change.
ALTER TYPE durable_status ADD VALUE IF NOT EXISTS 'cancelled';
