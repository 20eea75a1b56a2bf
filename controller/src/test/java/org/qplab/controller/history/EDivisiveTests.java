package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Change points as a user sees them on a fingerprint's series: where, by how much, how sure. Seeded series with
 * log-normal noise of a stated CV; how often the detector finds a step or invents one over many series is
 * bench/changepoints' job, not a test's.
 */
class EDivisiveTests {

    private static final EDivisive DEFAULT = new EDivisive(EDivisive.Settings.DEFAULT);

    @Test
    void findsACleanTenPercentStepAtItsIndexWithBothMeansAndTheChange() {
        double[] series = series(1, 60, 0.03, new int[] {30}, new double[] {1.10});
        List<ChangePoint> found = DEFAULT.scan(series).all();
        assertThat(found).hasSize(1);
        ChangePoint step = found.get(0);
        assertThat(step.index()).isBetween(28, 32);
        assertThat(step.meanBefore()).isCloseTo(1000, within(20.0));
        assertThat(step.meanAfter()).isCloseTo(1100, within(22.0));
        assertThat(step.changePercent()).isCloseTo(10, within(3.0));
        assertThat(step.pValue()).isLessThan(0.001);
        assertThat(step.pointsBefore() + step.pointsAfter()).isLessThanOrEqualTo(50).as("judged within one window");
    }

    @Test
    void findsALatencyThatGrewAsAPositiveChange() {
        double[] series = series(2, 60, 0.03, new int[] {25}, new double[] {1.25});
        List<ChangePoint> found = DEFAULT.scan(series).all();
        assertThat(found).singleElement().satisfies(c -> {
            assertThat(c.index()).isBetween(23, 27);
            assertThat(c.changePercent()).isCloseTo(25, within(4.0));
        });
    }

    @Test
    void aFlatNoisySeriesHasNoChangePoint() {
        for (int seed = 0; seed < 10; seed++) {
            assertThat(DEFAULT.scan(series(100 + seed, 100, 0.05, new int[0], new double[0])).all())
                    .as("seed %d", seed).isEmpty();
        }
    }

    @Test
    void twoStepsGiveTwoChangePointsInOrder() {
        double[] series = series(3, 90, 0.03, new int[] {30, 60}, new double[] {1.10, 0.85});
        List<ChangePoint> found = DEFAULT.scan(series).all();
        assertThat(found).hasSize(2);
        assertThat(found.get(0).index()).isBetween(28, 32);
        assertThat(found.get(0).changePercent()).isCloseTo(10, within(3.0));
        assertThat(found.get(1).index()).isBetween(58, 62);
        assertThat(found.get(1).changePercent()).isCloseTo(-15, within(3.0));
    }

    @Test
    void theMinimumMagnitudeSuppressesATinySignificantShift() {
        double[] series = series(4, 60, 0.005, new int[] {30}, new double[] {1.02});
        EDivisive anyChange = new EDivisive(new EDivisive.Settings(0.001, 50, 0, true));
        assertThat(anyChange.scan(series).all()).as("a 2 %% step at CV 0.5 %% is significant")
                .singleElement().satisfies(c -> {
                    assertThat(c.pValue()).isLessThan(1e-6);
                    assertThat(c.changePercent()).isCloseTo(2, within(0.5));
                });
        assertThat(DEFAULT.scan(series).all()).as("but below the default 5 %%").isEmpty();
    }

    @Test
    void pCountsThePlacesTheSplitCouldHaveTakenUnlessAskedForOtavasP() {
        double[] series = series(5, 40, 0.05, new int[] {20}, new double[] {1.15});
        EDivisive otava = new EDivisive(new EDivisive.Settings(0.001, 50, 5, false));
        ChangePoint uncorrected = otava.scan(series).all().get(0);
        ChangePoint corrected = DEFAULT.scan(series).all().get(0);
        assertThat(corrected.index()).isEqualTo(uncorrected.index());
        double[] logs = java.util.Arrays.stream(series).map(Math::log).toArray();
        assertThat(uncorrected.pValue()).isEqualTo(EDivisive.welch(logs, 0, uncorrected.index(), 40)[3]);
        assertThat(corrected.pValue()).as("40 points: splits at 5 .. 35, 31 places")
                .isCloseTo(31 * uncorrected.pValue(), within(1e-12));
    }

    @Test
    void resumingAfterEachNewRunGivesWhatAFullScanGives() {
        for (int seed = 0; seed < 5; seed++) {
            double[] series = series(200 + seed, 300, 0.04, new int[] {40, 75, 160, 170, 260},
                    new double[] {1.12, 0.9, 1.3, 0.8, 1.07});
            EDivisive.Scan running = EDivisive.Scan.from(0);
            for (int n = 1; n <= series.length; n++) {
                double[] prefix = java.util.Arrays.copyOf(series, n);
                running = DEFAULT.resume(prefix, running);
                EDivisive.Scan full = DEFAULT.scan(prefix);
                assertThat(running).as("seed %d, %d points", seed, n).isEqualTo(full);
                assertThat(running.resumeAt()).isGreaterThanOrEqualTo(n - EDivisive.Settings.DEFAULT.window());
            }
            assertThat(running.all()).as("seed %d finds steps", seed).hasSizeGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void resumingAfterSeveralNewRunsGivesWhatAFullScanGives() {
        double[] series = series(7, 400, 0.04, new int[] {100, 230}, new double[] {1.15, 0.9});
        EDivisive.Scan earlier = DEFAULT.scan(java.util.Arrays.copyOf(series, 137));
        assertThat(DEFAULT.resume(series, earlier)).isEqualTo(DEFAULT.scan(series));
        assertThat(DEFAULT.scan(series).settled()).extracting(ChangePoint::index)
                .satisfiesExactly(i -> assertThat(i).isBetween(98, 102), i -> assertThat(i).isBetween(228, 232));
    }

    @Test
    void resumingFromTheTailAloneGivesWhatAFullScanGives() {
        double[] series = series(10, 500, 0.04, new int[] {120, 300, 460}, new double[] {1.15, 0.9, 1.2});
        EDivisive.Scan earlier = DEFAULT.scan(java.util.Arrays.copyOf(series, 470));
        int from = earlier.resumeAt();
        double[] tail = java.util.Arrays.copyOfRange(series, from, series.length);
        EDivisive.Scan resumed = DEFAULT.resume(tail, from, earlier);
        assertThat(resumed.all()).extracting(ChangePoint::index).hasSize(3).last()
                .satisfies(i -> assertThat(i).isBetween(458, 462));
        assertThat(resumed).isEqualTo(DEFAULT.scan(series));
        assertThatThrownBy(() -> DEFAULT.resume(tail, from + 1, earlier))
                .hasMessage("the tail starts at point " + (from + 1) + ", after point " + from + " where the scan resumes");
    }

    @Test
    void aSeriesRestartedAtAChangePointReportsNothingBeforeIt() {
        double[] series = series(8, 120, 0.03, new int[] {30, 90}, new double[] {1.2, 1.1});
        List<ChangePoint> restarted = DEFAULT.resume(series, EDivisive.Scan.from(60)).all();
        assertThat(restarted).singleElement().satisfies(c -> assertThat(c.index()).isBetween(88, 92));
    }

    @Test
    void refusesAValueThatIsNotPositiveNamingThePoint() {
        double[] series = series(9, 30, 0.03, new int[0], new double[0]);
        series[17] = 0;
        assertThatThrownBy(() -> DEFAULT.scan(series)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("point 17 is 0.0: a run-level value must be positive and finite");
        double[] flat = series(9, 30, 0.03, new int[0], new double[0]);
        assertThatThrownBy(() -> DEFAULT.resume(new double[3], DEFAULT.scan(flat)))
                .hasMessage("the series has 3 points, fewer than the 30 scanned before");
    }

    @Test
    void settingsRefuseWhatCannotWork() {
        assertThatThrownBy(() -> new EDivisive.Settings(0, 50, 5, true)).hasMessage("pValue must be in (0, 1), got 0.0");
        assertThatThrownBy(() -> new EDivisive.Settings(0.001, 5, 5, true)).hasMessage("window must be at least 20 points, got 5");
        assertThatThrownBy(() -> new EDivisive.Settings(0.001, 50, -1, true))
                .hasMessage("minMagnitudePercent must be >= 0, got -1.0");
    }

    @Test
    void bestSplitMaximisesTheEnergyDivergenceComputedPairByPair() {
        SplittableRandom random = new SplittableRandom(11);
        double[] x = random.doubles(23).toArray();
        double[] best = EDivisive.bestSplit(x, 3, 21);
        int expectedIndex = -1;
        double expectedQ = Double.NEGATIVE_INFINITY;
        for (int tau = 3 + EDivisive.MIN_SIDE; tau <= 21 - EDivisive.MIN_SIDE; tau++) {
            double q = bruteForceQ(x, 3, tau, 21);
            if (q > expectedQ) {
                expectedQ = q;
                expectedIndex = tau;
            }
        }
        assertThat((int) best[0]).isEqualTo(expectedIndex);
        assertThat(best[1]).isCloseTo(expectedQ, within(1e-9));
    }

    @Test
    void welchGivesScipysTAndP() {
        // scipy.stats.ttest_ind([7, 9, 8, 10, 8, 9], [4, 5, 6, 5, 4], equal_var=False)
        double[] x = {4, 5, 6, 5, 4, 7, 9, 8, 10, 8, 9};
        double[] t = EDivisive.welch(x, 0, 5, 11);
        assertThat(t[2]).isCloseTo(6.506935237542097, within(1e-9));
        assertThat(t[3]).isCloseTo(0.00011082117472968341, within(1e-9));
        assertThat(EDivisive.welch(x, 0, 4, 11)[3]).as("4 points a side are too few").isEqualTo(1);
    }

    private static double bruteForceQ(double[] x, int from, int tau, int to) {
        int m = tau - from;
        int r = to - tau;
        double between = 0;
        double left = 0;
        double right = 0;
        for (int i = from; i < tau; i++) {
            for (int j = tau; j < to; j++) {
                between += Math.abs(x[i] - x[j]);
            }
            for (int k = i + 1; k < tau; k++) {
                left += Math.abs(x[i] - x[k]);
            }
        }
        for (int j = tau; j < to; j++) {
            for (int k = j + 1; k < to; k++) {
                right += Math.abs(x[j] - x[k]);
            }
        }
        double e = 2 * between / (m * r) - left / (m * (m - 1) / 2.0) - right / (r * (r - 1) / 2.0);
        return (double) m * r / (m + r) * e;
    }

    /** 1000 × the product of the steps so far × log-normal noise of the given CV (sd of the log). */
    static double[] series(long seed, int length, double cv, int[] stepAt, double[] factor) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] values = new double[length];
        double level = 1000;
        int next = 0;
        for (int i = 0; i < length; i++) {
            if (next < stepAt.length && i == stepAt[next]) {
                level *= factor[next++];
            }
            values[i] = level * Math.exp(cv * gaussian(random));
        }
        return values;
    }

    private static double gaussian(SplittableRandom random) { // Box–Muller: SplittableRandom has no nextGaussian on 17
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
