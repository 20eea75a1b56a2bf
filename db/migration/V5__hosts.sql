-- The hosts inventory: machines the controller deploys its agent to over SSH. The agent on a host
-- registers under the host's name. token_sha256 is the hash of the per-agent token issued at
-- deploy (the token itself is only on the host).
CREATE TABLE host (
    name          TEXT PRIMARY KEY,
    address       TEXT        NOT NULL,
    ssh_port      INTEGER     NOT NULL DEFAULT 22,
    ssh_user      TEXT        NOT NULL DEFAULT 'root',
    remote_dir    TEXT        NOT NULL DEFAULT '.qplab',
    state         TEXT        NOT NULL DEFAULT 'ADDED'
                  CHECK (state IN ('ADDED', 'DEPLOYING', 'RUNNING', 'STOPPED', 'FAILED')),
    detail        TEXT,
    token_sha256  BYTEA,
    agent_sha256  TEXT,
    deployed_at   TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
