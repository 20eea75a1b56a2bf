package org.qplab.controller.history;

import java.util.List;
import java.util.Map;

/**
 * An experiment (or one run) compared against the baselines of its runs' fingerprints: one point per
 * fingerprint that has a baseline (one run: judged against the fingerprint's history, or inconclusive); the runs
 * whose fingerprint has none are listed apart.
 */
public record BaselineComparison(Comparison.Side candidate, double alpha, double thresholdPercent, double confidence,
                                 int minRuns, List<Comparison.Point> points, List<WithoutBaseline> withoutBaseline) {

    /** Finished runs of one fingerprint that no baseline covers. */
    public record WithoutBaseline(String fingerprint, Map<String, Object> params, List<Long> runIds) {}
}
