-- The dashboard's scale check (DashboardScale): 1,000,000 instances and 10,000,000 history rows over 30 days, in the
-- schema on the search_path, which holds durable's tables, empty. Plain SQL, so psql runs it too:
--   psql -v ON_ERROR_STOP=1 -c 'SET search_path TO durable_scale' -f fill.sql  (or PGOPTIONS=-csearch_path=...)
--
-- Instance g (its id, the identity starting at 1) was created at 30 days ago + g * 30 days / 1,000,000.
-- Its machine, by g % 10: 0-3 parcel (queue parcels), 4-6 order (orders), 7-8 line (orders, a child of the order of
-- its ten), 9 report (reports; no node of the check runs it, so its due rows stay due).
-- Its status, by (g / 10) % 1000: 90 % done, 2 % cancelled, 1 % failed, 4 % awaiting a signal (a fifth of those
-- with a deadline, the orders' every third awaiting its lines), 2.5 % runnable, 0.5 % executing.
-- The runnable rows of the machines the check's node runs are timers a day ahead or suspended, and its executing
-- rows hold leases of another node for a day, so the node running the check changes nothing while it is measured.

TRUNCATE durable_history, durable_signal, durable_instance RESTART IDENTITY;

INSERT INTO durable_instance
    (machine, machine_version, step, status, state, result, awaits, deadline, awaits_children, queue, eligible_at,
     attempt, last_error, lease_owner, lease_token, lease_expires_at, unique_key, correlation_key, parent_id,
     cancel_with_parent, children_started, children_ended, suspension, created_at, updated_at)
SELECT m.machine, 1,
       CASE WHEN s.status = 'done' THEN m.steps[array_length(m.steps, 1)]
            WHEN s.status = 'awaiting_signal' THEN m.parks_at
            ELSE m.steps[g % array_length(m.steps, 1) + 1] END,
       s.status::durable_status,
       jsonb_build_object('name', m.machine || '-' || g, 'customer', 'customer-' || (g % 50000),
                          'lines', jsonb_build_array(jsonb_build_object('sku', 'sku-' || (g % 977), 'quantity', g % 7 + 1)),
                          'note', repeat('n', 60)),
       CASE WHEN s.status = 'done' THEN to_jsonb('delivered ' || m.machine || '-' || g) END,
       CASE WHEN s.status = 'awaiting_signal' THEN m.awaits END,
       CASE WHEN s.status = 'awaiting_signal' AND g % 5 = 0 THEN t.created + interval '40 days' END,
       CASE WHEN s.status = 'awaiting_signal' AND m.machine = 'order' AND g % 3 = 0 THEN 2 END,
       m.queue,
       CASE WHEN s.status = 'runnable' AND m.machine = 'report' THEN now() - (g % 3600) * interval '1 second'
            WHEN s.status = 'runnable' AND g % 10 = 0 THEN 'infinity'
            WHEN s.status = 'runnable' THEN now() + interval '1 day' + (g % 3600) * interval '1 second'
            ELSE t.created END,
       CASE WHEN s.status = 'failed' THEN 2 ELSE 0 END,
       CASE WHEN s.status = 'failed' THEN 'the ' || m.machine || ' step failed on ' || m.machine || '-' || g
                                          || ': carrier ' || (g % 13) || ' answered 503' END,
       CASE WHEN s.status = 'executing' THEN 'scale-node-1' END,
       CASE WHEN s.status = 'executing' THEN g END,
       CASE WHEN s.status = 'executing' THEN now() + interval '1 day' END,
       CASE WHEN m.machine = 'order' THEN 'order-' || g END,
       CASE WHEN m.machine IN ('order', 'line') THEN 'customer-' || (g % 50000) END,
       CASE WHEN m.machine = 'line' THEN g - g % 10 + 4 END,
       CASE WHEN m.machine = 'line' THEN true END,
       CASE WHEN m.machine = 'order' THEN 2 ELSE 0 END,
       CASE WHEN m.machine = 'order' AND s.status <> 'awaiting_signal' THEN 2 ELSE 0 END,
       CASE WHEN s.status = 'runnable' AND g % 10 = 0 AND m.machine <> 'report'
            THEN 'would lose [$.reservation]' END,
       t.created,
       t.created + (g % 600) * interval '1 second'
FROM generate_series(1, 1000000) g
CROSS JOIN LATERAL (SELECT now() - interval '30 days' + g * interval '2.592 seconds' AS created) t
CROSS JOIN LATERAL (SELECT CASE WHEN (g / 10) % 1000 < 900 THEN 'done'
                                WHEN (g / 10) % 1000 < 920 THEN 'cancelled'
                                WHEN (g / 10) % 1000 < 930 THEN 'failed'
                                WHEN (g / 10) % 1000 < 970 THEN 'awaiting_signal'
                                WHEN (g / 10) % 1000 < 995 THEN 'runnable'
                                ELSE 'executing' END AS status) s
CROSS JOIN LATERAL (SELECT * FROM (VALUES
        ('parcel', 'parcels', ARRAY['pack', 'label', 'await-pickup', 'deliver'], 'await-pickup', 'pickup'),
        ('order', 'orders', ARRAY['reserve', 'await-payment', 'ship'], 'await-payment', 'payment'),
        ('line', 'orders', ARRAY['pick', 'pack'], 'pick', 'stock'),
        ('report', 'reports', ARRAY['collect', 'render'], 'collect', 'data'))
        AS v (machine, queue, steps, parks_at, awaits)
    WHERE v.machine = CASE WHEN g % 10 < 4 THEN 'parcel' WHEN g % 10 < 7 THEN 'order'
                           WHEN g % 10 < 9 THEN 'line' ELSE 'report' END) m;

-- A fan-out: a tenth of the lines are children of the order 4, which has 10,000.
UPDATE durable_instance SET parent_id = 4 WHERE machine = 'line' AND id % 100 = 7;
UPDATE durable_instance SET children_started = 10000 + 2, children_ended = 9000 WHERE id = 4;

-- A signal waiting for every tenth parked instance.
INSERT INTO durable_signal (instance_id, name, payload, dedup_key)
SELECT id, awaits, '{"by":"scale"}', 'event-' || id FROM durable_instance WHERE status = 'awaiting_signal' AND id % 10 = 1;

-- Ten entries per instance, written in time order as the engine writes them: entry n falls at 30 days ago +
-- n * 30 days / 10,000,000 and belongs to instance n / 10 - (n % 10) * 3, so an instance's ten entries follow its
-- creation over about 80 seconds. Each machine's entries walk its steps: next, await, retry, done.
INSERT INTO durable_history (instance_id, step, event, next_step, status, attempt, node, lease_token, at, duration_ms,
                             error)
SELECT e.instance_id, p.step, p.event, p.next_step, p.status::durable_status, 0, 'scale-node-1', n,
       now() - interval '30 days' + n * interval '259.2 milliseconds', n % 50 + 1,
       CASE WHEN p.event = 'retry' THEN 'carrier ' || (n % 13) || ' answered 503' END
FROM generate_series(10, 10000009) n
CROSS JOIN LATERAL (SELECT greatest(1, n / 10 - (n % 10) * 3) AS instance_id) e
CROSS JOIN LATERAL (SELECT * FROM (VALUES
        (0, 0, 'pack', 'next', 'label', 'runnable'), (0, 1, 'label', 'retry', NULL, 'runnable'),
        (0, 2, 'label', 'next', 'await-pickup', 'runnable'), (0, 3, 'await-pickup', 'await', NULL, 'awaiting_signal'),
        (0, 4, 'await-pickup', 'next', 'deliver', 'runnable'), (0, 5, 'deliver', 'done', NULL, 'done'),
        (1, 0, 'reserve', 'next', 'await-payment', 'runnable'), (1, 1, 'await-payment', 'await', NULL, 'awaiting_signal'),
        (1, 2, 'await-payment', 'next', 'ship', 'runnable'), (1, 3, 'ship', 'retry', NULL, 'runnable'),
        (1, 4, 'ship', 'done', NULL, 'done'),
        (2, 0, 'pick', 'await', NULL, 'awaiting_signal'), (2, 1, 'pick', 'next', 'pack', 'runnable'),
        (2, 2, 'pack', 'done', NULL, 'done'),
        (3, 0, 'collect', 'next', 'render', 'runnable'), (3, 1, 'render', 'done', NULL, 'done'))
        AS v (machine, nth, step, event, next_step, status)
    WHERE v.machine = CASE WHEN e.instance_id % 10 < 4 THEN 0 WHEN e.instance_id % 10 < 7 THEN 1
                           WHEN e.instance_id % 10 < 9 THEN 2 ELSE 3 END
      AND v.nth = n % 10 % CASE WHEN e.instance_id % 10 < 4 THEN 6 WHEN e.instance_id % 10 < 7 THEN 5
                                WHEN e.instance_id % 10 < 9 THEN 3 ELSE 2 END) p;

-- As autovacuum leaves the tables: statistics, and the visibility map that index-only scans read.
VACUUM (ANALYZE) durable_instance;
VACUUM (ANALYZE) durable_signal;
VACUUM (ANALYZE) durable_history;
