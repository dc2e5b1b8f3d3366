-- durable schema, version 8: child instances (fan-out and fan-in).
-- Applied after V7, in the same schema (search_path set to it when run by hand), outside a transaction: the index is
-- built CONCURRENTLY, so a live table keeps taking writes while it is built. The new columns are nullable or have a
-- constant default, so adding them rewrites nothing. Every statement may run again after a failed attempt (IF NOT
-- EXISTS); an index left INVALID by a failed concurrent build must be dropped by hand before the next attempt
-- (DROP INDEX CONCURRENTLY durable_instance_parent).

-- The instance whose step started this one (NULL: started by a client or a schedule). No foreign key: retention
-- deletes an ended parent without touching children that may still run, and a child's end then finds no parent to
-- tell.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS parent_id bigint;

-- A child's policy when its parent is cancelled: true (the default for children) cancels it with the parent, false
-- lets it run on. NULL for instances that are nobody's child.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS cancel_with_parent boolean;

-- A parent's children: how many its committed outcomes started, and how many of them are ended (done, failed or
-- cancelled) now. A child's end adds one to its parent's children_ended in the transaction that ends it, under the
-- parent's row lock, so the parent's join is decided exactly once (docs/DESIGN.md, "Children").
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS children_started integer NOT NULL DEFAULT 0;
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS children_ended integer NOT NULL DEFAULT 0;

-- A parent parked on its children: the children_ended count at which it wakes (children_started for a join on all of
-- them, one more than the step had seen for a join on any). NULL: not parked on children.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS awaits_children integer;

-- A parent's children in id order: read by a step that asks for them, by the cascade of a parent's cancel, and by
-- the retention sweep, which keeps the ended children of an unfinished parent.
CREATE INDEX CONCURRENTLY IF NOT EXISTS durable_instance_parent ON durable_instance (parent_id, id)
    WHERE parent_id IS NOT NULL;
