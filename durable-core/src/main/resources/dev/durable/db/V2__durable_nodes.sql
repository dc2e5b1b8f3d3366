-- durable schema, version 2: the nodes that run machines, so that rows no live node can run are visible.
-- Applied after V1__durable_schema.sql, in the same schema (search_path set to it when run by hand).

-- One row per running engine (node id = node name + a per-start suffix), renewed by its heartbeat; a node that
-- stops deletes its row, one that dies leaves it to age out.
CREATE TABLE durable_node (
    id         text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at    timestamptz NOT NULL DEFAULT now()
);

-- The machine versions each node registers: rows of a (machine, version) no live node registers wait for one.
CREATE TABLE durable_node_machine (
    node_id         text NOT NULL REFERENCES durable_node (id) ON DELETE CASCADE,
    machine         text NOT NULL,
    machine_version int  NOT NULL,
    PRIMARY KEY (node_id, machine, machine_version)
);
