-- Which database this is. Run ids are only meaningful within one database, so an agent delivers what it
-- kept of a run (frames in its spool, a run's end) only to the installation that assigned the run; a
-- controller whose database was replaced is a new installation.
CREATE TABLE installation (
    id          UUID        PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    singleton   BOOLEAN     NOT NULL DEFAULT true UNIQUE CHECK (singleton)
);
INSERT INTO installation DEFAULT VALUES;
