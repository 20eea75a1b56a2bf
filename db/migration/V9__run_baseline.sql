-- The baseline of each fingerprint: the run later runs with the same fingerprint (parameters + the
-- host's hardware and software, see controller/history/Fingerprint.java) are compared against.
-- Marking another run of the same fingerprint replaces it.
CREATE TABLE run_baseline (
    fingerprint  TEXT        PRIMARY KEY,
    run_id       BIGINT      NOT NULL UNIQUE REFERENCES run(id) ON DELETE CASCADE,
    marked_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
