package org.qplab.controller.history;

import java.util.List;
import java.util.Map;

/**
 * Two experiments compared point by point: runs with equal parameters are paired; host facts
 * that differ between the two are listed, because then like is not compared with like.
 */
public record Comparison(Side baseline, Side candidate, double alpha, double thresholdPercent,
                         List<Mismatch> hostMismatches, List<Point> points,
                         List<Map<String, Object>> baselineOnly, List<Map<String, Object>> candidateOnly) {

    public record Side(long experimentId, String name) {}

    /** A host fact (kernel, cpu_model, engine ...) whose values differ between the two experiments. */
    public record Mismatch(String fact, List<Object> baseline, List<Object> candidate) {}

    /** Finished runs of one side at one point, pooled over repeats. */
    public record Stats(int runs, long cycles, double bwAvgBps, double msgRate, double cycleMedianNs) {}

    /**
     * One point: the change of the means in %, and whether the per-cycle times moved (Mann–Whitney
     * p-value). verdict: "regression" (cycles slower by at least the threshold, p &lt; alpha),
     * "improvement" (faster, likewise) or "no change".
     */
    public record Point(Map<String, Object> params, Stats baseline, Stats candidate, double bwChangePercent,
                        double cycleMedianChangePercent, double pValue, String verdict) {}
}
