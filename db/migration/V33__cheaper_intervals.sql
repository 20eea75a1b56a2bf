-- Cheaper intervals (issue 38): run_interval.buckets took 903 of the 1,304 bytes an interval was stored in, as
-- varint pairs (bucket step, count), about 3 bytes a bucket. From now on the controller stores each histogram in
-- the runs format (org.qplab.protocol.StoredHistogram): the bytes 0x00 0x02, then runs of consecutive buckets with
-- adaptive Rice codes of their gaps, lengths and count differences, about a byte a bucket; the same buckets and
-- exact counts. A pair list begins with 0 only when it is empty (a single byte), so the first byte tells the
-- formats apart: rows stored before stay as they are and read as before; nothing is rewritten here.
COMMENT ON COLUMN run_interval.buckets IS
    'the histogram: 0x00 0x02 then runs (StoredHistogram, V33); else, stored before V33, varint pair count, then (bucket - previous bucket, count)';

-- A run's histogram (the sum of its intervals, computed when it is first read, RunHistograms) was a row per bucket:
-- 852 rows of about 90 bytes for a run of a few hundred buckets per interval, each with its own foreign-key check
-- when inserted, 93 bytes per interval of a 20 s run. It is now one row per run: its buckets and their counts as
-- two arrays in ascending bucket order, and the cycles they add up to (what "is it current" compares).
CREATE TABLE run_histogram_runs (
    run_id   BIGINT   NOT NULL PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
    cycles   BIGINT   NOT NULL,
    buckets  INT[]    NOT NULL,  -- ascending, each with a count above 0
    counts   BIGINT[] NOT NULL
);
INSERT INTO run_histogram_runs (run_id, cycles, buckets, counts)
SELECT run_id, sum(count), array_agg(bucket::int ORDER BY bucket), array_agg(count ORDER BY bucket)
FROM run_histogram GROUP BY run_id;
DROP TABLE run_histogram;
ALTER TABLE run_histogram_runs RENAME TO run_histogram;
ALTER TABLE run_histogram RENAME CONSTRAINT run_histogram_runs_pkey TO run_histogram_pkey;
ALTER TABLE run_histogram RENAME CONSTRAINT run_histogram_runs_run_id_fkey TO run_histogram_run_id_fkey;
