package org.qplab.controller.history;

import java.util.List;
import org.qplab.controller.analysis.Metric;

/**
 * Judges one metric between two sets of runs, on their run-level values: runs are the unit of replication, the
 * cycles inside a run are not independent evidence about a configuration.
 *
 * <p>With at least {@link #MIN_RUNS} runs a side: Welch's t-test on the natural logs of the values. Logs because
 * performance numbers are positive and vary by ratios (a run 10 % slower, not 10 MB/s slower); the difference of
 * the log means back-transforms to the ratio of the geometric means, so the change and its confidence interval
 * come out in %, symmetric in ratio. Welch because the two sides' spreads need not be equal (a rate-limited
 * candidate scatters less). Not Mann–Whitney: with 3 runs a side its smallest two-sided p is 0.1, so it can never
 * reach p &lt; 0.05 there; t can, when the runs agree.
 *
 * <p>Two experiments are two moments of a machine: the runs of one share its state then (another tenant, the
 * CPU's clock, where the threads landed), so the means of experiments of one configuration scatter more than its
 * runs' spread explains. When the baseline fingerprint's history holds at least {@link #MIN_DRIFT_EXPERIMENTS}
 * experiments, that extra scatter (the between-experiment variance, method of moments: the variance of their
 * mean logs less the part their runs' scatter explains) is added to both sides' means (method welch-log+drift,
 * Satterthwaite's degrees of freedom); without it an A/A pair run at two moments of a drifting machine would be
 * called different.
 *
 * <p>With fewer runs a side, the spread of the baseline fingerprint's earlier runs (at least {@link #MIN_HISTORY},
 * across its experiments: run and experiment scatter together) is the noise model, with their degrees of
 * freedom; without it the verdict is "inconclusive".
 *
 * <p>A verdict of regression or improvement needs both p &lt; alpha and |change| &gt; threshold: significance alone,
 * over enough runs, flags changes too small to matter; the threshold alone flags noise.
 */
public final class RunLevelTest {

    /** Runs a side needs for a test over its own runs. */
    public static final int MIN_RUNS = 3;

    /** Earlier runs of a fingerprint needed for its history to stand in as the noise model. */
    public static final int MIN_HISTORY = 5;

    /** Earlier experiments (of 2 runs or more) of a fingerprint needed to estimate how experiments drift apart. */
    public static final int MIN_DRIFT_EXPERIMENTS = 3;

    private RunLevelTest() {
    }

    /**
     * @param history the values of the baseline fingerprint's earlier runs, one list per experiment; may be empty
     */
    public static Comparison.Judgment judge(Metric metric, List<Double> baseline, List<Double> candidate,
                                            List<List<Double>> history, double alpha, double thresholdPercent) {
        Comparison.Sample a = sample(baseline);
        Comparison.Sample b = sample(candidate);
        if (baseline.isEmpty() || candidate.isEmpty()) {
            return new Comparison.Judgment(metric.name(), metric.unit(), metric.higherIsBetter(), a, b, null, null,
                    null, null, null, null, null, null, "untested: " + metric.name() + " not measured on the "
                    + (baseline.isEmpty() ? "baseline" : "candidate") + " side");
        }
        if (baseline.stream().anyMatch(v -> !(v > 0)) || candidate.stream().anyMatch(v -> !(v > 0))) {
            return new Comparison.Judgment(metric.name(), metric.unit(), metric.higherIsBetter(), a, b,
                    percent(a.geomean(), b.geomean()), null, null, null, null, null, null, null,
                    "untested: a run's " + metric.name() + " is not positive");
        }
        double[] la = logs(baseline);
        double[] lb = logs(candidate);
        double difference = mean(lb) - mean(la);
        double standardError;
        double df;
        String method;
        Integer noiseRuns = null;
        Integer noiseExperiments = null;
        Double driftPercent = null;
        List<double[]> experiments = history.stream()
                .map(values -> values.stream().filter(v -> v > 0).mapToDouble(Math::log).toArray()).toList();
        double[] lh = experiments.stream().flatMapToDouble(java.util.Arrays::stream).toArray();
        if (la.length >= MIN_RUNS && lb.length >= MIN_RUNS) {
            double va = variance(la) / la.length;
            double vb = variance(lb) / lb.length;
            List<double[]> drifting = experiments.stream().filter(e -> e.length >= 2).toList();
            double drift = 0;
            double driftDf = 1;
            method = "welch-log";
            if (drifting.size() >= MIN_DRIFT_EXPERIMENTS) {
                drift = 2 * betweenExperiments(drifting); // each side's mean is one experiment's
                driftDf = drifting.size() - 1;
                method = "welch-log+drift";
                noiseExperiments = drifting.size();
                driftPercent = Math.sqrt(drift / 2) * 100;
            }
            double total = va + vb + drift;
            standardError = Math.sqrt(total);
            double denominator = va * va / (la.length - 1) + vb * vb / (lb.length - 1) + drift * drift / driftDf;
            df = denominator == 0 ? la.length + lb.length - 2 : total * total / denominator;
        } else if (lh.length >= MIN_HISTORY) {
            standardError = Math.sqrt(variance(lh) * (1.0 / la.length + 1.0 / lb.length));
            df = lh.length - 1;
            method = "history";
            noiseRuns = lh.length;
        } else {
            String runs = la.length == lb.length ? la.length + (la.length == 1 ? " run" : " runs") + " per side"
                    : la.length + " baseline " + (la.length == 1 ? "run" : "runs") + ", " + lb.length + " candidate "
                    + (lb.length == 1 ? "run" : "runs");
            return new Comparison.Judgment(metric.name(), metric.unit(), metric.higherIsBetter(), a, b,
                    percent(difference), null, null, null, null, null, null, null, "inconclusive: " + runs);
        }
        double p;
        double halfWidth;
        if (standardError == 0) { // every run of both sides measured exactly the same: nothing to weigh a change against
            p = difference == 0 ? 1 : 0;
            halfWidth = 0;
        } else {
            p = StudentT.twoSidedP(difference / standardError, df);
            halfWidth = StudentT.quantile(1 - alpha / 2, df) * standardError;
        }
        double change = percent(difference);
        String verdict = p >= alpha || Math.abs(change) <= thresholdPercent ? "no change"
                : (change > 0) == metric.higherIsBetter() ? "improvement" : "regression";
        return new Comparison.Judgment(metric.name(), metric.unit(), metric.higherIsBetter(), a, b, change,
                percent(difference - halfWidth), percent(difference + halfWidth), p, method, noiseRuns, noiseExperiments,
                driftPercent, verdict);
    }

    /**
     * The variance of experiments' mean logs that their runs' scatter does not explain (method of moments, never
     * below 0): var(m_i) - mean(s_i^2 / n_i).
     */
    static double betweenExperiments(List<double[]> experiments) {
        double[] means = experiments.stream().mapToDouble(RunLevelTest::mean).toArray();
        double explained = experiments.stream().mapToDouble(e -> variance(e) / e.length).average().orElse(0);
        return Math.max(0, variance(means) - explained);
    }

    /** n, the values, their geometric mean (positive values only), min, max and CV in %. */
    static Comparison.Sample sample(List<Double> values) {
        if (values.isEmpty()) {
            return new Comparison.Sample(0, List.of(), null, null, null, null);
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        boolean positive = values.stream().allMatch(x -> x > 0);
        double mean = mean(v);
        Double cv = v.length >= 2 && mean != 0 ? Math.sqrt(variance(v)) / mean * 100 : null;
        return new Comparison.Sample(v.length, List.copyOf(values), positive ? Math.exp(mean(logs(values))) : null,
                values.stream().min(Double::compare).orElseThrow(), values.stream().max(Double::compare).orElseThrow(), cv);
    }

    private static double percent(double logDifference) {
        return Math.expm1(logDifference) * 100;
    }

    private static Double percent(Double before, Double after) {
        return before == null || after == null || before == 0 ? null : (after / before - 1) * 100;
    }

    private static double[] logs(List<Double> values) {
        return values.stream().mapToDouble(Math::log).toArray();
    }

    static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /** The sample variance (n - 1). */
    static double variance(double[] values) {
        if (values.length < 2) {
            return 0;
        }
        double m = mean(values);
        double sum = 0;
        for (double v : values) {
            sum += (v - m) * (v - m);
        }
        return sum / (values.length - 1);
    }
}
