-- durable schema, version 16: what each transition changed of the state, in its history entry.
-- Applied after V15__durable_trace_context.sql, in the same schema (search_path set to it when run by hand).
-- Safe to run again.

-- The RFC 6902 JSON Patch from the state stored before the transition to the state it wrote (docs/DESIGN.md,
-- "History"): an array of operations, ending with a {"op": "cut", ...} marker when it was longer than the node's
-- limit; NULL when the transition changed nothing of the state (or the node records no patches). Adding a nullable
-- column without a default writes no row: the table is locked for a moment, not rewritten.
ALTER TABLE durable_history ADD COLUMN IF NOT EXISTS patch jsonb;

-- The patch of the upcast the step ran after (docs/DESIGN.md, "Upcasting"), from the state as stored by the older
-- version to the upcast one; the entry's patch then goes on from the upcast state. NULL without an upcast, or when
-- the upcast changed nothing.
ALTER TABLE durable_history ADD COLUMN IF NOT EXISTS upcast_patch jsonb;

UPDATE durable_schema_version SET version = 16 WHERE version < 16;
