-- Runs imported from perftest kept perftest's own keys in their summary (bw_average in MB/s, msg_rate_mpps,
-- t_typical_us, ...), which nothing that reads an engine run's summary knows. Rewrite them into the engine's keys
-- and units, as PerftestSummary stores an import now: bw_avg_bps, bw_peak_bps (bytes/s) and msg_rate (messages/s)
-- of a bandwidth test; cycle_ns (ns) and latency_us (µs, perftest's *_lat names) of a latency test; the run's
-- shape (provider, mode, op, threads, qps_per_thread, msg_size, iterations, tx_depth from its parameters);
-- cycles, messages, bytes, errors, duration_ns (from the columns, which the import filled in those units);
-- and what perftest printed under "perftest": {tool, line, bw_unit, results}. What was not measured stays absent.
UPDATE run_summary s
SET summary = jsonb_strip_nulls(jsonb_build_object(
        'provider', r.params -> 'provider',
        'mode', r.params -> 'mode',
        'op', r.params -> 'op',
        'threads', r.params -> 'threads',
        'qps_per_thread', r.params -> 'qps_per_thread',
        'msg_size', r.params -> 'msg_size',
        'iterations', r.params -> 'iterations',
        'tx_depth', r.params -> 'tx_depth',
        'cycles', s.cycles,
        'messages', s.messages,
        'bytes', s.bytes,
        'errors', s.errors,
        'duration_ns', s.duration_ns,
        'bw_avg_bps', s.bw_avg_bps,
        'bw_peak_bps', s.bw_peak_bps,
        'msg_rate', s.msg_rate,
        'cycle_ns', CASE WHEN s.summary ->> 't_typical_us' IS NOT NULL THEN jsonb_build_object(
            'min', (s.summary ->> 't_min_us')::double precision * 1000,
            'median', (s.summary ->> 't_typical_us')::double precision * 1000,
            'avg', (s.summary ->> 't_avg_us')::double precision * 1000,
            'stdev', (s.summary ->> 't_stdev_us')::double precision * 1000,
            'p99', (s.summary ->> 't_p99_us')::double precision * 1000,
            'p999', (s.summary ->> 't_p999_us')::double precision * 1000,
            'max', (s.summary ->> 't_max_us')::double precision * 1000) END,
        'latency_us', CASE WHEN s.summary ->> 't_typical_us' IS NOT NULL THEN jsonb_build_object(
            'min', s.summary -> 't_min_us',
            'max', s.summary -> 't_max_us',
            'typical', s.summary -> 't_typical_us',
            'avg', s.summary -> 't_avg_us',
            'stdev', s.summary -> 't_stdev_us',
            'p99', s.summary -> 't_p99_us',
            'p999', s.summary -> 't_p999_us') END,
        'perftest', jsonb_build_object(
            'tool', s.summary -> 'tool',
            'line', s.summary -> 'line',
            'bw_unit', s.summary -> 'bw_unit',
            'results', (s.summary - 'imported_from' - 'tool' - 'line' - 'bw_unit')
                || jsonb_build_object('bytes', (s.summary ->> 'bytes')::numeric::bigint,
                                      'iterations', (s.summary ->> 'iterations')::numeric::bigint))))
FROM run r
WHERE r.id = s.run_id AND s.summary ->> 'imported_from' = 'perftest';
