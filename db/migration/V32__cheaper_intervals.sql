-- Cheaper intervals (issue 38): run_interval.buckets took 903 of the 1,304 bytes an interval was stored in, as
-- varint pairs (bucket step, count), about 3 bytes a bucket. From now on the controller stores each histogram in
-- the runs format (org.qplab.protocol.StoredHistogram): the bytes 0x00 0x02, then runs of consecutive buckets with
-- adaptive Rice codes of their gaps, lengths and count differences, about a byte a bucket; the same buckets and
-- exact counts. A pair list begins with 0 only when it is empty (a single byte), so the first byte tells the
-- formats apart: rows stored before stay as they are and read as before; nothing is rewritten here.
COMMENT ON COLUMN run_interval.buckets IS
    'the histogram: 0x00 0x02 then runs (StoredHistogram, V32); else, stored before V32, varint pair count, then (bucket - previous bucket, count)';

