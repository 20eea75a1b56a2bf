package org.qplab.controller.history;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * Two experiments (or two runs) compared point by point: configurations equal in every parameter but the across
 * ones are paired; host facts that differ between the two are listed, because then like is not compared with
 * like. Two runs are paired whatever their parameters; those that differ are listed in paramMismatches. Each
 * point is judged on the run-level values of its metrics ({@link RunLevelTest}).
 */
@Schema(description = "Two experiments (or runs) compared point by point, each point judged over its runs.")
public record Comparison(Side baseline, Side candidate, double alpha, double thresholdPercent,
                         @Schema(description = "The confidence level of every interval: 1 - alpha.") double confidence,
                         @Schema(description = "Runs a side needs for a test over its own runs; with fewer, the "
                                 + "fingerprint's history is the noise model, or the verdict is inconclusive.")
                         int minRuns,
                         @Schema(description = "The parameters allowed to differ between paired points.")
                         List<String> across,
                         @Schema(description = "Parameters whose values do not overlap between the two sides: naming "
                                 + "them in across pairs the points that differ only there.")
                         List<String> suggestAcross,
                         List<Mismatch> hostMismatches, List<ParamMismatch> paramMismatches, List<Point> points,
                         List<Map<String, Object>> baselineOnly, List<Map<String, Object>> candidateOnly) {

    /** An experiment, or one run of it (runId set). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Side(long experimentId, String name, Long runId) {}

    /** A host fact (kernel, cpu_model, engine ...) whose values differ between the two sides. */
    public record Mismatch(String fact, List<Object> baseline, List<Object> candidate) {}

    /** A parameter whose value differs between two compared runs (or, with across, two paired points). */
    public record ParamMismatch(String param, Object baseline, Object candidate) {}

    /**
     * One side's runs at one point: how many, the cycles they count, the geometric means over the runs of what
     * they measured (null: none measured it), and the shape of their pooled within-run distribution.
     */
    public record Stats(int runs, long cycles, Double bwAvgBps, Double msgRate, Double cycleMedianNs,
                        Double latencyTypicalUs, Double latencyP99Us, Shape shape) {}

    /**
     * The cycle-time percentiles of a side's runs pooled (the sum of their histograms): the distribution's
     * shape, its tail, beside the verdict; never its significance (cycles of one run are not independent).
     */
    @Schema(name = "ComparisonShape")
    public record Shape(Long p50Ns, Long p99Ns, Long p999Ns) {}

    /** One metric's per-run values on one side: n of them, their geometric mean, min, max and coefficient of variation. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "ComparisonSample")
    public record Sample(int n, List<Double> values, Double geomean, Double min, Double max,
                         @Schema(description = "Standard deviation over mean of the values, in % (n >= 2).")
                         Double cvPercent) {}

    /**
     * One metric judged over runs: the change of the geometric mean in % with its confidence interval, the
     * p-value of the test, the method (welch-log: Welch's t on the runs' log values; welch-log+drift: with how far
     * the fingerprint's noiseExperiments earlier experiments drifted apart added, driftPercent; history: the spread
     * of the fingerprint's noiseRuns earlier runs), and the verdict: regression or improvement only when p &lt;
     * alpha and the change passes the threshold, "no change", "inconclusive: …" with too few runs, "untested: …"
     * when a side did not measure it.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "ComparisonJudgment")
    public record Judgment(String metric, String unit, boolean higherIsBetter, Sample baseline, Sample candidate,
                           Double changePercent, Double ciLowPercent, Double ciHighPercent, Double pValue,
                           String method, Integer noiseRuns,
                           @Schema(description = "With method welch-log+drift: the earlier experiments of the "
                                   + "baseline fingerprint whose spread between them was added.") Integer noiseExperiments,
                           @Schema(description = "With method welch-log+drift: how far experiments of the fingerprint "
                                   + "drift apart beyond their runs' scatter (sd of their mean logs, x 100: ~%).")
                           Double driftPercent,
                           String verdict) {}

    /**
     * One point: the configuration (the baseline's; with across, the parameters that differ are in differing),
     * the verdict of its metric and what led to it, every metric judged, both sides' runs, and the fingerprint of
     * the baseline side (most of its runs'; its history: GET /api/fingerprints/{fingerprint}/history). Against
     * baselines, the point is one fingerprint and names its baseline run.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "ComparisonPoint", description = "One point of a comparison: its configuration, the verdict over "
            + "runs of its metric (change in % of the geometric mean, confidence interval, p-value, method), every "
            + "metric judged, both sides' runs, and the NIC counters whose deltas differ between the two.")
    public record Point(Map<String, Object> params, List<ParamMismatch> differing, String metric, String verdict,
                        Double changePercent, Double ciLowPercent, Double ciHighPercent, Double pValue, String method,
                        Integer noiseRuns, Integer noiseExperiments, Double driftPercent, List<Judgment> judgments, Stats baseline, Stats candidate,
                        Double bwChangePercent, Double cycleMedianChangePercent, String fingerprint,
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
