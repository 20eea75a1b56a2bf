-- Recurring experiments (issue 36, controller/recurring): a matrix template submitted on a schedule, either a cron
-- expression (Spring's, 6 fields with seconds, in the controller's time zone) or every every_hours hours. matrix: the
-- document as it was sent (JSON or YAML, as content_type says), submitted as POST /api/experiments would, by owner.
-- next_run_at: when it fires next; NULL while disabled. Each occurrence is claimed by moving next_run_at on in the
-- transaction that records it (WHERE next_run_at = the due time AND enabled): two controllers on one database cannot
-- both fire it.
CREATE TABLE recurring (
    id            BIGSERIAL   PRIMARY KEY,
    name          TEXT        NOT NULL,
    matrix        TEXT        NOT NULL,
    content_type  TEXT        NOT NULL,
    cron          TEXT,
    every_hours   INT         CHECK (every_hours > 0),
    enabled       BOOLEAN     NOT NULL DEFAULT true,
    next_run_at   TIMESTAMPTZ,
    owner         TEXT        NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((cron IS NULL) <> (every_hours IS NULL)),
    CHECK (enabled = (next_run_at IS NOT NULL))
);
CREATE INDEX recurring_due ON recurring (next_run_at) WHERE enabled;

-- What each occurrence produced: SUBMITTED (experiment_id; NULL once that experiment is deleted), SKIPPED (the
-- previous occurrence's experiment was still queued or running; reason says which) or FAILED (the submit was refused:
-- reason has the error). One row per due time.
CREATE TABLE recurring_occurrence (
    id             BIGSERIAL   PRIMARY KEY,
    recurring_id   BIGINT      NOT NULL REFERENCES recurring(id) ON DELETE CASCADE,
    due_at         TIMESTAMPTZ NOT NULL,
    fired_at       TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    outcome        TEXT        NOT NULL CHECK (outcome IN ('SUBMITTED', 'SKIPPED', 'FAILED')),
    experiment_id  BIGINT      REFERENCES experiment(id) ON DELETE SET NULL,
    reason         TEXT,
    UNIQUE (recurring_id, due_at)
);
CREATE INDEX recurring_occurrence_experiment ON recurring_occurrence (experiment_id);
