-- Per-agent tokens issued by an admin (POST /api/agents/{id}/token) for agents started by hand. Only the
-- SHA-256 of the token is kept; the token was shown once. An agent id with a token of its own (here, or
-- in host.token_sha256 from a deploy) can no longer register with the shared enrolment token.
CREATE TABLE agent_token (
    agent_id      TEXT PRIMARY KEY,
    token_sha256  BYTEA       NOT NULL,
    issued_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
