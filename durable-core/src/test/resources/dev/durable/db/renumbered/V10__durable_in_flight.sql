-- durable schema, version 10: what is in flight, by machine version and step.
-- Applied after V9__durable_history.sql, in the same schema (search_path set to it when run by hand), outside a
-- transaction: the index is built CONCURRENTLY, so a live table keeps taking writes while it is built. Safe to run
-- again (IF NOT EXISTS); an index left INVALID by a failed concurrent build must be dropped by hand before the next
-- attempt (DROP INDEX CONCURRENTLY durable_instance_step).

-- The runnable, parked and failed rows by machine, version, step and status, in id order: what the in-flight report
-- and the deploy check read (docs/DESIGN.md, "What is in flight"). Each group is found with one probe (a loose index
-- scan), counted up to a cap and sampled across its ids, however many rows it holds. Executing rows are left out on
-- purpose: every pick and every heartbeat writes a new version of them, which would add an entry here each time, and
-- they are few (at most the slots of the live nodes), so the report reads them through durable_instance_lease.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_step
    ON durable_instance (machine, machine_version, step, status, id)
    WHERE status IN ('runnable', 'awaiting_signal', 'failed');
