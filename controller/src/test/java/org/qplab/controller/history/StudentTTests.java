package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Student's t against values from scipy.stats.t and closed forms. */
class StudentTTests {

    @Test
    void quantilesMatchTheTables() {
        assertThat(StudentT.quantile(0.975, 10)).isCloseTo(2.228138851986274, within(1e-9));
        assertThat(StudentT.quantile(0.995, 4)).isCloseTo(4.604094871349992, within(1e-9));
        assertThat(StudentT.quantile(0.995, 3.3)).as("fractional df, as Welch's").isCloseTo(5.344306069721078, within(1e-8));
        assertThat(StudentT.quantile(0.975, 1e7)).as("the normal's, far out").isCloseTo(1.959964, within(1e-5));
    }

    @Test
    void twoSidedTailsMatchClosedFormsAndScipy() {
        assertThat(StudentT.twoSidedP(1, 1)).as("Cauchy: P(|T| > 1) = 1/2").isCloseTo(0.5, within(1e-12));
        assertThat(StudentT.twoSidedP(2, 2)).as("df 2: 1 - t / sqrt(t^2 + 2)").isCloseTo(0.18350341907227397, within(1e-12));
        assertThat(StudentT.twoSidedP(3.1, 7.5)).isCloseTo(0.015884151890859705, within(1e-10));
        assertThat(StudentT.twoSidedP(0, 5)).isEqualTo(1.0);
        assertThat(StudentT.twoSidedP(-2, 2)).isEqualTo(StudentT.twoSidedP(2, 2));
    }

    @Test
    void theQuantileIsTheInverseOfTheTail() {
        for (double df : new double[] {1, 2.5, 4, 8, 30, 200}) {
            for (double q : new double[] {0.9, 0.975, 0.995, 0.9995}) {
                assertThat(StudentT.twoSidedP(StudentT.quantile(q, df), df)).as("df %s, q %s", df, q)
                        .isCloseTo(2 * (1 - q), within(1e-9));
            }
        }
    }
}
