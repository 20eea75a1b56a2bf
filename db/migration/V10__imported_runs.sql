-- Runs imported from perftest's output (POST /api/import/perftest) carry what perftest measured:
-- a bandwidth test has no cycle-time percentiles, a latency test no bandwidth. Those metrics are
-- NULL there, never a made-up zero; runs measured by qplab still fill every column.
ALTER TABLE run_summary ALTER COLUMN bw_avg_bps DROP NOT NULL;
ALTER TABLE run_summary ALTER COLUMN bw_peak_bps DROP NOT NULL;
ALTER TABLE run_summary ALTER COLUMN msg_rate DROP NOT NULL;
ALTER TABLE run_summary ALTER COLUMN cycle_median_ns DROP NOT NULL;
ALTER TABLE run_summary ALTER COLUMN cycle_p99_ns DROP NOT NULL;
