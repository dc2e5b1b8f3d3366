-- Whether a lower fillfactor lets the engine's transitions of durable_instance be HOT updates (heap-only tuples).
-- Run against a database holding the schema durable_bench (any benchmark run leaves it), e.g.
--   psql -h 127.0.0.1 -U postgres -d durable_soak -f hot-check.sql
DROP SCHEMA IF EXISTS hotcheck CASCADE;
CREATE SCHEMA hotcheck;
-- Copies of durable_instance with every index (partial ones included), at fillfactor 100 (the schema's) and 70.
CREATE TABLE hotcheck.ff100 (LIKE durable_bench.durable_instance INCLUDING ALL);
CREATE TABLE hotcheck.ff70 (LIKE durable_bench.durable_instance INCLUDING ALL) WITH (fillfactor = 70);
SELECT count(*) AS indexes_copied FROM pg_indexes WHERE schemaname = 'hotcheck' AND tablename = 'ff70';
INSERT INTO hotcheck.ff100 (machine, machine_version, step, state, queue)
SELECT 'm', 1, 'a', '{"i":1}', 'default' FROM generate_series(1, 10000);
INSERT INTO hotcheck.ff70 (machine, machine_version, step, state, queue)
SELECT 'm', 1, 'a', '{"i":1}', 'default' FROM generate_series(1, 10000);
-- The claim, the columns ClaimRepository's pick sets.
UPDATE hotcheck.ff100 SET status = 'executing', lease_owner = 'n', lease_token = 1,
    lease_expires_at = now() + interval '30 s', updated_at = now();
UPDATE hotcheck.ff70 SET status = 'executing', lease_owner = 'n', lease_token = 1,
    lease_expires_at = now() + interval '30 s', updated_at = now();
-- A next: runnable again at the next step.
UPDATE hotcheck.ff100 SET status = 'runnable', step = 'b', lease_owner = NULL, lease_expires_at = NULL,
    eligible_at = now(), updated_at = now();
UPDATE hotcheck.ff70 SET status = 'runnable', step = 'b', lease_owner = NULL, lease_expires_at = NULL,
    eligible_at = now(), updated_at = now();
-- For contrast: an update of the state alone, a column no index reads.
UPDATE hotcheck.ff70 SET state = '{"i":2}';
SELECT pg_sleep(1); -- the statistics are flushed at the end of the transaction, at most once a second
SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = 'hotcheck' ORDER BY relname;
DROP SCHEMA hotcheck CASCADE;
