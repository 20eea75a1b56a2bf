-- Retests of bad host pairs (hosts all_pairs, {group: ...} or {pairs: ...}; the matrix's retests, bad_below and
-- bad_above): 0 for a run of the matrix itself, k for the k-th retest of a pair judged bad in every round before it
-- (schedule/PairRetests.java). A pair is bad only if it stays bad in every round it ran (analysis/PairMatrix.java).
ALTER TABLE run ADD COLUMN retest INT NOT NULL DEFAULT 0 CHECK (retest >= 0);
