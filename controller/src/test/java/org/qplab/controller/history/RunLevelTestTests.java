package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.qplab.controller.analysis.Metric;

/** The verdict over runs: Welch's t on log values, the history as noise model, inconclusive with too few runs. */
class RunLevelTestTests {

    private static final Metric BANDWIDTH = Metric.byName("bw_avg_bps").orElseThrow();
    private static final Metric LATENCY = Metric.byName("latency_typical_us").orElseThrow();

    @Test
    void welchOnLogsGivesScipysPAndTheChangeOfTheGeometricMeansWithItsInterval() {
        // scipy.stats.ttest_ind(log(b), log(a), equal_var=False): t -11.3478, df 3.2403, p 0.0010196
        Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, List.of(100.0, 110.0, 95.0), List.of(60.0, 55.0, 58.0),
                List.of(), 0.01, 5);
        assertThat(j.method()).isEqualTo("welch-log");
        assertThat(j.pValue()).isCloseTo(0.0010196041659740172, within(1e-9));
        assertThat(j.changePercent()).isCloseTo(-43.209562508671354, within(1e-9));
        assertThat(j.ciLowPercent()).as("99 %% interval").isCloseTo(-56.68244362757709, within(1e-6));
        assertThat(j.ciHighPercent()).isCloseTo(-25.546266674688866, within(1e-6));
        assertThat(j.verdict()).isEqualTo("regression");
        assertThat(j.baseline().n()).isEqualTo(3);
        assertThat(j.baseline().geomean()).isCloseTo(Math.cbrt(100.0 * 110 * 95), within(1e-9));
        assertThat(j.baseline().cvPercent()).as("sd / mean").isCloseTo(7.512, within(0.001));
    }

    @Test
    void aLongerLatencyIsARegressionAndAShorterOneAnImprovement() {
        assertThat(RunLevelTest.judge(LATENCY, List.of(10.0, 10.2, 9.9), List.of(15.0, 15.3, 14.8), List.of(), 0.01, 5)
                .verdict()).isEqualTo("regression");
        assertThat(RunLevelTest.judge(LATENCY, List.of(15.0, 15.3, 14.8), List.of(10.0, 10.2, 9.9), List.of(), 0.01, 5)
                .verdict()).isEqualTo("improvement");
    }

    @Test
    void aSignificantChangeBelowTheThresholdIsNoChange() {
        Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, List.of(100.0, 100.1, 99.9, 100.0),
                List.of(97.0, 97.1, 96.9, 97.0), List.of(), 0.01, 5);
        assertThat(j.pValue()).isLessThan(1e-6);
        assertThat(j.changePercent()).isCloseTo(-3, within(0.01));
        assertThat(j.verdict()).isEqualTo("no change");
    }

    @Test
    void oneRunASideWithoutHistoryIsInconclusiveAndHasNoPValue() {
        Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, List.of(100.0), List.of(50.0), List.of(List.of(90.0, 110.0)), 0.01, 5);
        assertThat(j.verdict()).isEqualTo("inconclusive: 1 run per side");
        assertThat(j.pValue()).isNull();
        assertThat(j.ciLowPercent()).isNull();
        assertThat(j.changePercent()).isCloseTo(-50, within(1e-9));
        assertThat(RunLevelTest.judge(BANDWIDTH, List.of(100.0, 101.0), List.of(50.0), List.of(), 0.01, 5).verdict())
                .isEqualTo("inconclusive: 2 baseline runs, 1 candidate run");
    }

    @Test
    void theFingerprintsHistoryIsTheNoiseModelOfOneRunASide() {
        // the spread of six earlier runs: sd of their logs 0.0258; a 10 % drop is t -2.90 on 5 df, p 0.0337
        List<List<Double>> history = List.of(List.of(100.0, 104.0, 97.0), List.of(101.0, 99.0, 103.0));
        Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, List.of(100.0), List.of(90.0), history, 0.05, 5);
        assertThat(j.method()).isEqualTo("history");
        assertThat(j.noiseRuns()).isEqualTo(6);
        assertThat(j.pValue()).isCloseTo(0.03372865568936397, within(1e-9));
        assertThat(j.verdict()).isEqualTo("regression");
        assertThat(RunLevelTest.judge(BANDWIDTH, List.of(100.0), List.of(90.0), history, 0.01, 5).verdict())
                .as("not at alpha 0.01").isEqualTo("no change");
        assertThat(RunLevelTest.judge(BANDWIDTH, List.of(100.0), List.of(90.0), List.of(List.of(100.0, 104.0), List.of(97.0, 101.0)), 0.05, 5).verdict())
                .as("four earlier runs are too few").startsWith("inconclusive");
    }

    @Test
    void aSideThatDidNotMeasureTheMetricIsUntested() {
        assertThat(RunLevelTest.judge(LATENCY, List.of(), List.of(5.0, 5.0, 5.0), List.of(), 0.01, 5).verdict())
                .isEqualTo("untested: latency_typical_us not measured on the baseline side");
    }

    /**
     * The same distribution on both sides, 5 runs each, 20 % run-to-run scatter: at alpha 0.01 about 1 % of
     * 4,000 comparisons are significant (the test is calibrated), and with the 5 % threshold no more.
     */
    @Test
    void aaComparisonsRaiseAlarmsAtAlphaOrLess() {
        SplittableRandom random = new SplittableRandom(30);
        int significant = 0;
        int alarms = 0;
        int trials = 4000;
        for (int i = 0; i < trials; i++) {
            Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, draw(random, 5, 1.0, 0.2), draw(random, 5, 1.0, 0.2),
                    List.of(), 0.01, 5);
            significant += j.pValue() < 0.01 ? 1 : 0;
            alarms += j.verdict().equals("no change") ? 0 : 1;
        }
        assertThat(significant / (double) trials).isBetween(0.004, 0.016);
        assertThat(alarms).isLessThanOrEqualTo(significant);
    }

    /**
     * A halved candidate, 5 runs a side, 15 % scatter: flagged nearly always, and the interval holds -50 %. (At 20 %
     * scatter about 94 % are flagged: the smallest change found at 80 % power grows with the scatter.)
     */
    @Test
    void aHalvedCandidateIsARegressionWhoseIntervalHoldsMinusFiftyPercent() {
        SplittableRandom random = new SplittableRandom(31);
        int flagged = 0;
        int covered = 0;
        int trials = 1000;
        for (int i = 0; i < trials; i++) {
            Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, draw(random, 5, 1.0, 0.15), draw(random, 5, 0.5, 0.15),
                    List.of(), 0.01, 5);
            flagged += j.verdict().equals("regression") ? 1 : 0;
            covered += j.ciLowPercent() <= -50 && -50 <= j.ciHighPercent() ? 1 : 0;
        }
        assertThat(flagged / (double) trials).isGreaterThan(0.95);
        assertThat(covered / (double) trials).as("a 99 %% interval").isBetween(0.975, 1.0);
    }

    @Test
    void theBetweenExperimentVarianceIsWhatTheRunsScatterDoesNotExplain() {
        // means 0, 0.3, -0.2 (variance 0.19 / 3), each from runs 0.02 apart (variance 0.0002, over 2 runs 0.0001)
        List<double[]> experiments = List.of(new double[] {-0.01, 0.01}, new double[] {0.29, 0.31},
                new double[] {-0.21, -0.19});
        assertThat(RunLevelTest.betweenExperiments(experiments)).isCloseTo(0.19 / 3 - 0.0001, within(1e-12));
        assertThat(RunLevelTest.betweenExperiments(List.of(new double[] {0, 0.2}, new double[] {0.2, 0}, new double[] {0.1, 0.1})))
                .as("means alike: no drift").isZero();
    }

    /**
     * A machine whose experiments drift apart (each experiment's runs shifted together by a draw of sd 0.15; runs
     * scatter 0.1 within one): two experiments' runs alone raise alarms in about a third of A/A pairs; with six
     * earlier experiments of the fingerprint the drift is estimated and added, and alarms fall to about twice alpha
     * (the drift is itself estimated from six experiments: with twelve, ~1.4 %; with three, ~5 %).
     */
    @Test
    void aaPairsOfADriftingMachineRaiseAlarmsAtAboutAlphaOnceItsEarlierExperimentsAreKnown() {
        SplittableRandom random = new SplittableRandom(32);
        int withoutHistory = 0;
        int withHistory = 0;
        int trials = 2000;
        for (int i = 0; i < trials; i++) {
            List<List<Double>> history = new ArrayList<>();
            for (int e = 0; e < 6; e++) {
                history.add(draw(random, 5, Math.exp(0.15 * gaussian(random)), 0.1));
            }
            List<Double> a = draw(random, 5, Math.exp(0.15 * gaussian(random)), 0.1);
            List<Double> b = draw(random, 5, Math.exp(0.15 * gaussian(random)), 0.1);
            withoutHistory += RunLevelTest.judge(BANDWIDTH, a, b, List.of(), 0.01, 5).verdict().equals("no change") ? 0 : 1;
            Comparison.Judgment j = RunLevelTest.judge(BANDWIDTH, a, b, history, 0.01, 5);
            assertThat(j.method()).isEqualTo("welch-log+drift");
            assertThat(j.noiseExperiments()).isEqualTo(6);
            withHistory += j.verdict().equals("no change") ? 0 : 1;
        }
        assertThat(withoutHistory / (double) trials).as("alarms from the runs alone").isGreaterThan(0.2);
        assertThat(withHistory / (double) trials).as("alarms with the drift added").isLessThan(0.035);
    }

    private static double gaussian(SplittableRandom random) {
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    /** n log-normal values around scale x 1e9, sd of their logs sigma (about their coefficient of variation). */
    private static List<Double> draw(SplittableRandom random, int n, double scale, double sigma) {
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            values.add(scale * 1e9 * Math.exp(sigma * gaussian(random)));
        }
        return values;
    }
}
