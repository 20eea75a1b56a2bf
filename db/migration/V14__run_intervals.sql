-- Statistics are intervals. Every interval_ms (100 by default) each thread of a run closes an interval
-- record in the engine: the cycles that ended in it, their messages, bytes and errors, the shortest and
-- longest cycle, the first start and last end, and the sparse histogram of their cycle times (the buckets of
-- qplab_cycle_bucket, V3). Intervals count every cycle at any cycle rate, and the stream's size depends on
-- time, not on the NIC's speed; a run's histogram (run_histogram) is the sum of its intervals. Rows in
-- sample are from now on an opt-in per-cycle trace, and no statistic depends on them.

-- Unsigned LEB128 of a value >= 0: 7 bits a byte, low first, the top bit on every byte but the last.
CREATE FUNCTION qplab_varint(v BIGINT) RETURNS BYTEA
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0,
                      (((v >> (7 * i)) & 127) | CASE WHEN (v >> (7 * (i + 1))) > 0 THEN 128 ELSE 0 END)::int),
                      ''::bytea ORDER BY i)
    FROM generate_series(0, 8) AS i
    WHERE i = 0 OR (v >> (7 * i)) > 0
$$;

-- One row per interval of one thread. Like sample it has no foreign key: rows arrive only through
-- sample_batch, whose key (checked in the same transaction) keeps a replayed frame out and whose foreign key
-- says the run exists. The primary key stores an interval once even if that check were bypassed, and is the
-- order every reader wants.
CREATE TABLE run_interval (
    run_id          BIGINT NOT NULL,
    thread          INT    NOT NULL,
    idx             BIGINT NOT NULL,  -- the cycles that ended from idx x interval_ms after the run's t0 ...
    span            INT    NOT NULL,  -- ... for span intervals (1; more when the engine could not hand it over)
    cycles          BIGINT NOT NULL,
    messages        BIGINT NOT NULL,
    bytes           BIGINT NOT NULL,
    errors          BIGINT NOT NULL,
    min_ns          BIGINT NOT NULL,  -- shortest and longest cycle
    max_ns          BIGINT NOT NULL,
    first_start_ns  BIGINT NOT NULL,  -- first post of its first cycle, ns since the run's t0
    last_end_ns     BIGINT NOT NULL,  -- last completion of its last cycle
    buckets         BYTEA  NOT NULL,  -- the histogram: varint pair count, then (bucket - previous bucket, count)
    PRIMARY KEY (run_id, thread, idx)
);

-- What each stored frame carried: cycles its intervals count and how many there were (rows: trace records).
ALTER TABLE sample_batch ADD COLUMN cycles BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sample_batch ADD COLUMN intervals INT NOT NULL DEFAULT 0;
UPDATE sample_batch SET cycles = rows; -- until now every row was a cycle

-- When a run's trace rows were deleted (DELETE /api/runs/{id}/trace, or qplab.retention.trace).
ALTER TABLE run ADD COLUMN trace_deleted_at TIMESTAMPTZ;

-- Runs stored before this release keep their samples and histograms, and get the intervals of what was
-- stored, at the default 100 ms, so that every reader finds intervals.
INSERT INTO run_interval (run_id, thread, idx, span, cycles, messages, bytes, errors, min_ns, max_ns,
                          first_start_ns, last_end_ns, buckets)
SELECT run_id, thread, idx, 1, sum(n), sum(messages), sum(bytes), sum(errors), min(min_ns), max(max_ns),
       min(first_start), max(last_end),
       qplab_varint(count(*)) || string_agg(qplab_varint(bucket - previous) || qplab_varint(n), ''::bytea ORDER BY bucket)
FROM (SELECT run_id, thread, idx, bucket, count(*) AS n, sum(messages) AS messages, sum(bytes) AS bytes,
             sum(errors) AS errors, min(end_ns - start_ns) AS min_ns, max(end_ns - start_ns) AS max_ns,
             min(start_ns) AS first_start, max(end_ns) AS last_end,
             lag(bucket, 1, 0::bigint) OVER (PARTITION BY run_id, thread, idx ORDER BY bucket) AS previous
      FROM (SELECT s.*, s.end_ns / 100000000 AS idx, qplab_cycle_bucket(s.end_ns - s.start_ns) AS bucket
            FROM sample s JOIN run r ON r.id = s.run_id) x
      GROUP BY run_id, thread, idx, bucket) per_bucket
GROUP BY run_id, thread, idx;
