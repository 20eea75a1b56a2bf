-- qplab schema v1: experiments expand into runs; runs carry per-cycle samples and one summary.

CREATE TABLE experiment (
    id           BIGSERIAL PRIMARY KEY,
    name         TEXT        NOT NULL,
    matrix       JSONB       NOT NULL,            -- the matrix as submitted (normalised to JSON)
    status       TEXT        NOT NULL DEFAULT 'QUEUED'
                 CHECK (status IN ('QUEUED', 'RUNNING', 'FINISHED', 'FAILED', 'CANCELLED')),
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at  TIMESTAMPTZ
);

CREATE TABLE run (
    id            BIGSERIAL PRIMARY KEY,
    experiment_id BIGINT      NOT NULL REFERENCES experiment(id) ON DELETE CASCADE,
    idx           INT         NOT NULL,            -- position in the expanded matrix
    repeat        INT         NOT NULL DEFAULT 0,
    params        JSONB       NOT NULL,            -- the engine spec of this run
    status        TEXT        NOT NULL DEFAULT 'QUEUED'
                  CHECK (status IN ('QUEUED', 'RUNNING', 'FINISHED', 'FAILED', 'CANCELLED')),
    agent_id      TEXT,
    attempt       INT         NOT NULL DEFAULT 0,
    queued_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at    TIMESTAMPTZ,
    finished_at   TIMESTAMPTZ,
    error         TEXT,
    UNIQUE (experiment_id, idx)
);
CREATE INDEX run_queue ON run (queued_at, id) WHERE status = 'QUEUED';
CREATE INDEX run_by_experiment ON run (experiment_id, idx);

-- One row per engine record: one cycle of one thread. Times are ns since the run's t0.
-- The hottest table: no foreign key (its per-row trigger cost 4x the COPY itself) and no primary
-- key. Rows arrive only through sample_batch, whose (run_id, seq) key, checked in the same
-- transaction, keeps a replayed frame out and whose foreign key guarantees the run exists.
-- Rows of a run are appended together, so a BRIN index finds them for next to nothing.
CREATE TABLE sample (
    run_id    BIGINT NOT NULL,
    thread    INT    NOT NULL,
    cycle     BIGINT NOT NULL,
    start_ns  BIGINT NOT NULL,
    end_ns    BIGINT NOT NULL,
    bytes     BIGINT NOT NULL,
    messages  BIGINT NOT NULL,
    errors    INT    NOT NULL
);
CREATE INDEX sample_by_run ON sample USING brin (run_id);

-- Sample batches as the agent numbered them; a replayed batch is recognised here and skipped.
CREATE TABLE sample_batch (
    run_id      BIGINT      NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    seq         BIGINT      NOT NULL,
    rows        INT         NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, seq)
);

-- The engine's summary of a run (perftest definitions), plus the headline numbers as columns.
CREATE TABLE run_summary (
    run_id           BIGINT PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
    summary          JSONB            NOT NULL,
    cycles           BIGINT           NOT NULL,
    messages         BIGINT           NOT NULL,
    bytes            BIGINT           NOT NULL,
    errors           BIGINT           NOT NULL,
    dropped          BIGINT           NOT NULL,
    duration_ns      BIGINT           NOT NULL,
    bw_avg_bps       DOUBLE PRECISION NOT NULL,   -- bytes per second
    bw_peak_bps      DOUBLE PRECISION NOT NULL,
    msg_rate         DOUBLE PRECISION NOT NULL,   -- messages per second
    cycle_median_ns  DOUBLE PRECISION NOT NULL,
    cycle_p99_ns     DOUBLE PRECISION NOT NULL,
    batches          BIGINT           NOT NULL    -- sample batches the agent sent
);

CREATE TABLE agent (
    id              TEXT PRIMARY KEY,
    hostname        TEXT        NOT NULL,
    facts           JSONB       NOT NULL,
    connected       BOOLEAN     NOT NULL DEFAULT false,
    registered_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_heartbeat  TIMESTAMPTZ
);
