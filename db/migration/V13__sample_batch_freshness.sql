-- How fresh a stored frame was: first_end_ns is the end (ns since the run's t0) of the frame's oldest cycle,
-- received_at the moment its rows became visible (just before the ingest transaction commits). With the
-- run's t0_realtime_ns (in its summary) that gives the time from the engine's record to a visible row.
ALTER TABLE sample_batch ADD COLUMN first_end_ns BIGINT;
-- (From here on run_histogram, V3, grows as each frame is stored, in the same transaction, instead of
-- being computed from the sample table when the run ends: rows of concurrent runs interleave, so that
-- computation scanned the whole table once per run.)
-- The BRIN index on sample.run_id only narrows a run's rows down to the ranges it has summarized; an
-- unsummarized range matches every run. Summarize each range as it fills (autovacuum does it in the
-- background) instead of only when the table is vacuumed.
ALTER INDEX sample_by_run SET (autosummarize = on);
