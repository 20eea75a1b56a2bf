-- Where a run must run (from the matrix's hosts): both NULL = loopback on any agent; only
-- want_client = loopback on that host; both = a client/server pair across two hosts.
-- agent_id is the agent that ran the run's sending side (its samples); server_agent_id the
-- receiving side of a pair, whose own summary is kept in server_summary.
ALTER TABLE run ADD COLUMN want_client TEXT;
ALTER TABLE run ADD COLUMN want_server TEXT;
ALTER TABLE run ADD COLUMN server_agent_id TEXT;
ALTER TABLE run ADD COLUMN server_summary JSONB;
ALTER TABLE run ADD CONSTRAINT run_pair_distinct CHECK (want_server IS NULL OR want_server <> want_client);
ALTER TABLE run ADD CONSTRAINT run_pair_has_client CHECK (want_server IS NULL OR want_client IS NOT NULL);
