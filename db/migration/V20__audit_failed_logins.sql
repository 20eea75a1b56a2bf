-- Failed logins are counted, not listed one by one (issue 31: anonymous callers must not grow the audit log
-- without bound): one row per address, minute and kind ('failed logins' checked and wrong, 'throttled logins'
-- refused unchecked while the account or address waits), its times the tries and its target the account names
-- tried. Every other row is one event (times 1). Rows of the older 'login failed' (one per try) stay as they are.
ALTER TABLE audit_event ADD COLUMN times INT NOT NULL DEFAULT 1 CHECK (times >= 1);
CREATE UNIQUE INDEX audit_event_failed_logins ON audit_event (action, remote, at)
    WHERE actor IS NULL AND action IN ('failed logins', 'throttled logins');
