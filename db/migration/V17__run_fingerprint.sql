-- The fingerprint of a finished run (its parameters + its host's facts, controller/history/Fingerprint.java),
-- stored so that a fingerprint's runs are found by index: its history over time, and the noise model of a
-- comparison with too few runs a side. Computed in Java (a SHA-256 of canonical JSON) and filled in for finished
-- runs that lack it when a history is read (history/Fingerprints), so every way a run finishes is covered.
ALTER TABLE run ADD COLUMN fingerprint TEXT;
CREATE INDEX run_by_fingerprint ON run (fingerprint, finished_at) WHERE fingerprint IS NOT NULL;
CREATE INDEX run_fingerprint_missing ON run (id) WHERE fingerprint IS NULL AND status = 'FINISHED';
