-- How each finished run met its experiment's expect rules (the matrix's `expect`, history/ExpectRules.java), judged
-- once when it finished, against the baseline its fingerprint had then: a later baseline does not rewrite a verdict.
-- verdict: FAIL when a rule failed; NOT_JUDGED when a relative rule found no baseline, or no rule applied to the run;
-- PASS otherwise. rules: one object per rule (rule, metric, unit, result, measured, limit, baseline, baselineRunId,
-- message), as GET /api/runs/{id} shows them (run/RunExpectation.java).
CREATE TABLE run_expectation (
    run_id     BIGINT      PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
    verdict    TEXT        NOT NULL CHECK (verdict IN ('PASS', 'FAIL', 'NOT_JUDGED')),
    rules      JSONB       NOT NULL,
    judged_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
