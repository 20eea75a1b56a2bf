-- Each finished run's cycle times as a log-linear histogram, computed once when the run ends, so
-- comparisons over millions of cycles read a few hundred rows instead of every sample.
--
-- Bucket of a cycle time of ns nanoseconds: exact below 256 ns; above, e = floor(log2(ns)) - 7 and
-- bucket = e * 128 + (ns >> e): 128 buckets per power of two, each at most 1/128 (0.78 %) wide.
-- The formula is continuous across powers of two, so float rounding of log2 there cannot misorder.
CREATE FUNCTION qplab_cycle_bucket(ns BIGINT) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN ns < 256 THEN greatest(ns, 0)
                ELSE (floor(ln(ns::float8) / ln(2.0))::int - 7)::bigint * 128
                     + (ns >> (floor(ln(ns::float8) / ln(2.0))::int - 7)) END
$$;

CREATE TABLE run_histogram (
    run_id  BIGINT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    bucket  BIGINT NOT NULL,
    count   BIGINT NOT NULL,
    PRIMARY KEY (run_id, bucket)
);

INSERT INTO run_histogram (run_id, bucket, count)
SELECT s.run_id, qplab_cycle_bucket(s.end_ns - s.start_ns), count(*)
FROM sample s JOIN run r ON r.id = s.run_id AND r.status = 'FINISHED'
GROUP BY 1, 2;
