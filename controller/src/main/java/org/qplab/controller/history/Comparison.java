package org.qplab.controller.history;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * Two experiments (or two runs) compared point by point: runs with equal parameters are paired; host
 * facts that differ between the two are listed, because then like is not compared with like. Two runs
 * are paired whatever their parameters; those that differ are listed in paramMismatches.
 */
public record Comparison(Side baseline, Side candidate, double alpha, double thresholdPercent,
                         List<Mismatch> hostMismatches, List<ParamMismatch> paramMismatches, List<Point> points,
                         List<Map<String, Object>> baselineOnly, List<Map<String, Object>> candidateOnly) {

    /** An experiment, or one run of it (runId set). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Side(long experimentId, String name, Long runId) {}

    /** A host fact (kernel, cpu_model, engine ...) whose values differ between the two sides. */
    public record Mismatch(String fact, List<Object> baseline, List<Object> candidate) {}

    /** A parameter whose value differs between two compared runs. */
    public record ParamMismatch(String param, Object baseline, Object candidate) {}

    /** Finished runs of one side at one point, pooled over repeats. */
    public record Stats(int runs, long cycles, Double bwAvgBps, Double msgRate, Double cycleMedianNs) {}

    /**
     * One point: the change of the means in %, and whether the per-cycle times moved (Mann–Whitney
     * p-value). verdict: "regression" (cycles slower by at least the threshold, p &lt; alpha),
     * "improvement" (faster, likewise) or "no change". Against baselines, the point is one fingerprint
     * and names its baseline run.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "ComparisonPoint", description = "One point of a comparison: both sides' runs there and the change, "
            + "and the NIC counters whose deltas differ between the two (counterChanges).")
    public record Point(Map<String, Object> params, Stats baseline, Stats candidate, Double bwChangePercent,
                        Double cycleMedianChangePercent, Double pValue, String verdict, String fingerprint,
                        Long baselineRunId, Long baselineExperimentId, List<CounterChange> counterChanges) {}

    /**
     * A counter whose delta over a run differs between the baseline and the candidate at one point (means over
     * each side's runs; null: no run of that side read it). side: "client" (the run's own summary; a loopback
     * run has only this one) or "server" (a pair run's receiving side). warning: a summary of either side warned
     * that this counter moved (retransmissions, errors, out-of-sequence, RNR). Warnings first, then by side and
     * name.
     */
    public record CounterChange(String side, String counter, Double baseline, Double candidate, boolean warning) {}
}
