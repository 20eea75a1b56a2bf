-- "sample" named three things: the frame an agent sends, the per-cycle trace and a count of cycles.
-- The per-cycle trace records are run_trace; the frames each run's agent numbered (the replay guard:
-- seq, rows, cycles, intervals, first_end_ns, received_at) are run_frame, as the other per-run
-- tables are named. A rename changes the catalog only: no row is rewritten.
ALTER TABLE sample RENAME TO run_trace;
ALTER INDEX sample_by_run RENAME TO run_trace_by_run;
ALTER TABLE sample_batch RENAME TO run_frame;
ALTER TABLE run_frame RENAME CONSTRAINT sample_batch_pkey TO run_frame_pkey;
ALTER TABLE run_frame RENAME CONSTRAINT sample_batch_run_id_fkey TO run_frame_run_id_fkey;
