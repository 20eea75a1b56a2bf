package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MannWhitneyTests {

    /** Cycle-time-like: log-normal around 100 µs with a long right tail. */
    private static double[] cycleTimes(long seed, int n, double scale) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            double gaussian = Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
            values[i] = scale * 100_000 * Math.exp(0.25 * gaussian);
        }
        return values;
    }

    @Test
    void flagsAFivePercentShiftAtTheStatedConfidence() {
        MannWhitney.Result result = MannWhitney.test(cycleTimes(1, 5000, 1.0), cycleTimes(2, 5000, 1.05));

        assertThat(result.pValue()).as("p of a 5 %% shift, 5000 cycles each").isLessThan(0.001);
        assertThat(result.probability()).as("P(baseline > candidate)").isLessThan(0.5);
    }

    @Test
    void doesNotFlagTwoDrawsOfTheSameDistribution() {
        int flagged = 0;
        for (long seed = 0; seed < 40; seed += 2) {
            if (MannWhitney.test(cycleTimes(seed, 5000, 1.0), cycleTimes(seed + 1, 5000, 1.0)).pValue() < 0.001) {
                flagged++;
            }
        }
        assertThat(flagged).as("false alarms in 20 comparisons at p < 0.001").isZero();
    }

    @Test
    void matchesTheTextbookValuesIncludingTies() {
        // no overlap: U = 0, z = (0 - 12.5 + 0.5) / sqrt(25 * 11 / 12); scipy gives p = 0.01219
        MannWhitney.Result apart = MannWhitney.test(new double[] {1, 2, 3, 4, 5}, new double[] {6, 7, 8, 9, 10});
        assertThat(apart.u()).isZero();
        assertThat(apart.pValue()).isCloseTo(0.01219, within(0.00005));

        // ties: a = {1, 2, 2}, b = {2, 3}: ranks 1, 3, 3 | 3, 5 -> R_a = 7, U = 1
        MannWhitney.Result tied = MannWhitney.test(new double[] {1, 2, 2}, new double[] {2, 3});
        assertThat(tied.u()).isEqualTo(1.0);
        assertThat(tied.probability()).isCloseTo(1.0 / 6, within(1e-12));

        assertThat(MannWhitney.test(new double[] {7, 7}, new double[] {7, 7, 7}).pValue()).isEqualTo(1.0);
    }

    @Test
    void erfcIsAccurateInTheTails() {
        assertThat(MannWhitney.erfc(0)).isCloseTo(1.0, within(1e-7));
        assertThat(MannWhitney.erfc(1)).isCloseTo(0.157299207, within(1e-7));
        assertThat(MannWhitney.erfc(3) / 2.209049700e-5).isCloseTo(1.0, within(1e-6));
        assertThat(MannWhitney.erfc(-1)).isCloseTo(1.842700793, within(1e-7));
    }
}
