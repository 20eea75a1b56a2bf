-- A run that failed for a reason that may pass (its agent was lost, a step of a pair run timed out, a
-- system call, the network or the peer failed) is tried again as a new run at the same point of the
-- matrix, up to qplab.schedule.max-attempts tries. The failed try stays as it ended: FAILED, with its
-- reason and whatever samples it stored (a "partial" run); superseded_by names the run that took its
-- place, retry_of points back. Only runs not superseded count towards the experiment's progress and
-- outcome; attempt is the try's number (1, 2, ...).
ALTER TABLE run ADD COLUMN superseded_by BIGINT REFERENCES run(id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE run ADD COLUMN retry_of BIGINT REFERENCES run(id);
ALTER TABLE run DROP CONSTRAINT run_experiment_id_idx_key;
CREATE UNIQUE INDEX run_point ON run (experiment_id, idx) WHERE superseded_by IS NULL;
