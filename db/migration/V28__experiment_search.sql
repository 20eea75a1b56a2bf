-- A knee search's outcome (the matrix's search; schedule/SearchSteps.java), written once when it ends: kind (knee,
-- cliff, none), value, bracketLow, bracketHigh, bracketed, why; null while it runs, and for an experiment without one.
ALTER TABLE experiment ADD COLUMN search_result JSONB;
