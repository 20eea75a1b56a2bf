-- Several controllers on one PostgreSQL (README "Scaling out"). Each controller process is a row (a new id at every
-- start), beating every qplab.cluster.heartbeat; one whose last_seen is older than qplab.cluster.dead-after, or that
-- stopped, is gone: its agents are marked disconnected and its runs are recovered as after a restart.
CREATE TABLE controller (
    id          TEXT        PRIMARY KEY,
    name        TEXT        NOT NULL,           -- qplab.cluster.name, else host:port
    url         TEXT,                           -- where its API answers, as far as it knows
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen   TIMESTAMPTZ NOT NULL DEFAULT now(),
    stopped_at  TIMESTAMPTZ                     -- a clean stop
);

-- The controller an agent's live link is on (connected = true), or was on last.
ALTER TABLE agent ADD COLUMN controller_id TEXT;

-- The controller that drives a RUNNING run (it claimed it, or adopted it when its agents came back to it).
ALTER TABLE run ADD COLUMN controller_id TEXT;

-- A claim checks that none of its hosts has a run RUNNING (whichever controller started it).
CREATE INDEX run_running_client ON run (agent_id) WHERE status = 'RUNNING';
CREATE INDEX run_running_server ON run (server_agent_id) WHERE status = 'RUNNING';

-- Messages about a pair run whose two hosts are on different controllers (schedule/PairRelay), by kind: to_agent, a
-- message of the pair's driver for agent_id, whose link is on to_controller; from_agent, a message of agent_id about
-- the run, for the run's driver to_controller; release, the driver is done with agent_id for the run. Taken (deleted)
-- by to_controller, woken by NOTIFY qplab_relay.
CREATE TABLE controller_message (
    id            BIGSERIAL   PRIMARY KEY,
    to_controller TEXT        NOT NULL,
    agent_id      TEXT        NOT NULL,
    run_id        BIGINT      NOT NULL,
    kind          TEXT        NOT NULL CHECK (kind IN ('to_agent', 'from_agent', 'release')),
    message       JSONB,
    sent_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX controller_message_to ON controller_message (to_controller, id);

-- Background jobs that must run on one controller at a time (cluster/Leadership): the holder keeps its lease by
-- renewing it before expires_at; another controller takes it once it has expired.
CREATE TABLE leader_lease (
    name        TEXT        PRIMARY KEY,
    holder      TEXT        NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    since       TIMESTAMPTZ NOT NULL DEFAULT now()
);
