-- durable schema, version 14: the schema's version, written in the schema itself.
-- Applied after V13__durable_live_counts.sql, in the same schema (search_path set to it when run by hand).

-- One row: the version of the last file applied. A node reads it before it writes anything and refuses to start
-- against a schema newer than its code knows (a rollback past a schema upgrade), naming both versions
-- (docs/DESIGN.md, "Data model"). Every later version ends by raising it:
-- UPDATE durable_schema_version SET version = <n> WHERE version < <n>. Read the same whether the schema came from
-- the changelog or from these files.
CREATE TABLE durable_schema_version (
    single  boolean PRIMARY KEY DEFAULT true CHECK (single),
    version integer NOT NULL
);

INSERT INTO durable_schema_version (version) VALUES (14);
