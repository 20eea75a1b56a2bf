-- The triage of change points (history/ChangeTriage.java): a confirmed change is a new normal, and its series
-- restarts there: origin_run_id is the run_after of the change last confirmed, from which every later scan reads
-- (positions then count from it). A dismissed change keeps its row, hidden, and restarts nothing.
ALTER TABLE change_scan ADD COLUMN origin_run_id BIGINT REFERENCES run(id) ON DELETE SET NULL;
