-- Change points of each fingerprint's run-level series (controller/history/EDivisive.java, issue 36), kept up to
-- date as runs finish (history/ChangeDetection). change_scan is where each fingerprint's series by one metric was
-- scanned to: its next run resumes the scan at resume_at, the start of the window that reached the series' end
-- (resume_run_id is the run there), and reads only the runs from there on. runs_to_last counts the fingerprint's
-- runs (any metric) up to last_run_id: when that count changes (a run deleted, a fingerprint filled in late), the
-- series is scanned again from its start.
CREATE TABLE change_scan (
    fingerprint    TEXT        NOT NULL,
    metric         TEXT        NOT NULL,
    length         INT         NOT NULL,
    last_run_id    BIGINT,
    resume_at      INT         NOT NULL,
    resume_run_id  BIGINT,
    runs_to_last   INT         NOT NULL DEFAULT 0,
    scanned_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (fingerprint, metric)
);

-- One change point: the runs from run_after on differ from those up to run_before. position: run_after's place in
-- the series. settled: found in a window that later runs cannot change; an unsettled one may move or vanish as runs
-- arrive (its open row goes with it). status: open until a person confirms it (a new normal) or dismisses it.
CREATE TABLE change_point (
    id              BIGSERIAL        PRIMARY KEY,
    fingerprint     TEXT             NOT NULL,
    metric          TEXT             NOT NULL,
    run_before      BIGINT           NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    run_after       BIGINT           NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    position        INT              NOT NULL,
    mean_before     DOUBLE PRECISION NOT NULL,
    mean_after      DOUBLE PRECISION NOT NULL,
    change_percent  DOUBLE PRECISION NOT NULL,
    p_value         DOUBLE PRECISION NOT NULL,
    points_before   INT              NOT NULL,
    points_after    INT              NOT NULL,
    settled         BOOLEAN          NOT NULL,
    status          TEXT             NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'confirmed', 'dismissed')),
    found_at        TIMESTAMPTZ      NOT NULL DEFAULT now(),
    decided_by      TEXT,
    decided_at      TIMESTAMPTZ,
    reason          TEXT,
    UNIQUE (fingerprint, metric, run_after)
);
CREATE INDEX change_point_open ON change_point (found_at DESC) WHERE status = 'open';
