-- Each alert posted to qplab.alerts.webhook-url (alerts/AlertWebhook.java), once: key names the alert (change:ID,
-- expectation:EXPERIMENT, stale:SCHEDULE:SINCE), claimed by the controller that posts it; status PENDING while the
-- first try runs, RETRYING between tries, DELIVERED or FAILED at the end, with the tries made and the last error.
CREATE TABLE alert_delivery (
    key           TEXT        PRIMARY KEY,
    kind          TEXT        NOT NULL,
    message       TEXT        NOT NULL,
    status        TEXT        NOT NULL CHECK (status IN ('PENDING', 'RETRYING', 'DELIVERED', 'FAILED')),
    attempts      INT         NOT NULL DEFAULT 0,
    last_error    TEXT,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    delivered_at  TIMESTAMPTZ
);
