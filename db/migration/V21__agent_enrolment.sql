-- Agent ids bound to a token of their own, now or ever: enrolled with the shared enrolment secret (and given
-- their own token at once), issued one by an admin (agent_token), or deployed over SSH (host.token_sha256).
-- The enrolment secret registers only an id that is not here. A row is never deleted: revoking a token, or
-- deleting the host, does not reopen its id to the secret (issue 31: after DELETE /api/agents/{id}/token the
-- secret took the id again).
CREATE TABLE agent_identity (
    agent_id  TEXT        PRIMARY KEY,
    bound_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    bound_by  TEXT        NOT NULL CHECK (bound_by IN ('enrolment', 'admin', 'deploy'))
);

INSERT INTO agent_identity (agent_id, bound_at, bound_by) SELECT agent_id, issued_at, 'admin' FROM agent_token;
INSERT INTO agent_identity (agent_id, bound_at, bound_by)
    SELECT name, coalesce(deployed_at, created_at), 'deploy' FROM host WHERE token_sha256 IS NOT NULL
    ON CONFLICT (agent_id) DO NOTHING;
