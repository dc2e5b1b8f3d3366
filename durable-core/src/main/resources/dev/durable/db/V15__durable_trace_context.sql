-- durable schema, version 15: the trace context an instance's next step continues, and a signal's.
-- Applied after V14__durable_schema_version.sql, in the same schema (search_path set to it when run by hand).
-- Safe to run again.

-- W3C trace headers as text, one "name value" line each (docs/DESIGN.md, "Tracing"): the traceparent (and tracestate)
-- of the call that started or woke the instance, which its next step continues as a child, and a "link" to the span
-- a new trace of a later step links to. NULL without tracing. Adding a nullable column without a default writes no
-- row: the tables are locked for a moment, not rewritten.
ALTER TABLE durable_instance ADD COLUMN IF NOT EXISTS trace_context text;

-- The traceparent (and tracestate) of the call that sent the signal.
ALTER TABLE durable_signal ADD COLUMN IF NOT EXISTS trace_context text;

UPDATE durable_schema_version SET version = 15 WHERE version < 15;
