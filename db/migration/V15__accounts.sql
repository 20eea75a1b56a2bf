-- Who may do what. An account has one role: viewer reads everything; operator also submits, cancels,
-- imports and sets baselines; admin also manages hosts, agents, users and deletes. Passwords are stored
-- with a standard encoder (bcrypt, in Spring Security's {id}hash form), never as they were typed.
CREATE TABLE account (
    name          TEXT        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9._@-]{1,64}$'),
    password_hash TEXT        NOT NULL,
    role          TEXT        NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- API tokens for scripts (Authorization: Bearer): only the SHA-256 of a token is kept; the token itself is
-- shown once, when it is made. A revoked token stays listed (when, by whom it was used) but no longer works.
CREATE TABLE api_token (
    id           BIGSERIAL   PRIMARY KEY,
    account      TEXT        NOT NULL REFERENCES account(name) ON DELETE CASCADE,
    name         TEXT        NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    token_sha256 BYTEA       NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_token_account ON api_token (account);

-- Who did what, and when: every state change through the API (and every login), with its outcome.
CREATE TABLE audit_event (
    id      BIGSERIAL   PRIMARY KEY,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor   TEXT,                      -- the account (NULL: nobody logged in)
    action  TEXT        NOT NULL,      -- e.g. "POST /api/experiments", "login"
    target  TEXT,                      -- the path and query, or the account a login was for
    status  INT,                       -- the HTTP status answered
    remote  TEXT                       -- the caller's address
);
CREATE INDEX audit_event_at ON audit_event (at DESC);

-- Who submitted an experiment (NULL: before accounts, or imported by the system).
ALTER TABLE experiment ADD COLUMN submitted_by TEXT;
