-- The host as it was when the run ran (kernel, CPU, engine version, ...): half of a run's history
-- fingerprint, so a comparison can say when like is not compared with like.
ALTER TABLE run ADD COLUMN host_facts JSONB;
