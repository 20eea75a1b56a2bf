package org.qplab.controller.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ClusterKit's rule on an experiment's pairs: bad below 0.93 of the best bandwidth, above 2.1x the best time. */
class PairMatrixTests {

    private static final Map<String, Object> POINT = Map.of("msg_size", 65536);

    private static PairMatrix judge(String metric, List<PairMatrix.Row> rows) {
        return PairMatrix.judge(Metric.byName(metric).orElseThrow(), 0.93, 2.1, rows);
    }

    @Test
    void aPairBelow93PercentOfTheBestBandwidthIsBad() {
        PairMatrix m = judge("bw_avg_bps", List.of(new PairMatrix.Row(POINT, "b", "c", 94, 3),
                new PairMatrix.Row(POINT, "a", "b", 100, 3), new PairMatrix.Row(POINT, "a", "c", 92.9, 3),
                new PairMatrix.Row(POINT, "a", "d", 93, 3)));
        assertThat(m.hosts()).containsExactly("a", "b", "c", "d");
        PairMatrix.Judged point = m.configurations().get(0);
        assertThat(point.bestPair()).isEqualTo("a/b");
        assertThat(point.best()).isEqualTo(100);
        assertThat(point.bad()).isEqualTo(1);
        assertThat(point.pairs()).extracting(c -> c.client() + "/" + c.server() + " " + c.bad())
                .containsExactly("a/b false", "a/c true", "a/d false", "b/c false");
        assertThat(point.pairs().get(1).relative()).isEqualTo(0.929, org.assertj.core.data.Offset.offset(1e-9));
    }

    /** A retested pair stays bad only if it is bad in every round; it shows its last round; the best is round 0's. */
    @Test
    void aRetestedPairIsBadOnlyIfBadInEveryRound() {
        PairMatrix m = judge("bw_avg_bps", List.of(new PairMatrix.Row(POINT, "a", "b", 0, 100, 2),
                new PairMatrix.Row(POINT, "a", "c", 0, 50, 2), new PairMatrix.Row(POINT, "a", "c", 1, 99, 2),
                new PairMatrix.Row(POINT, "b", "c", 0, 60, 2), new PairMatrix.Row(POINT, "b", "c", 1, 61, 2),
                new PairMatrix.Row(POINT, "b", "c", 2, 40, 1)));
        PairMatrix.Judged point = m.configurations().get(0);
        assertThat(point.pairs()).extracting(c -> c.client() + "/" + c.server() + " " + c.bad() + " " + c.rounds()
                + " " + c.value()).containsExactly("a/b false 1 100.0", "a/c false 2 99.0", "b/c true 3 40.0");
        assertThat(point.bad()).isEqualTo(1);
        assertThat(judge("bw_avg_bps", List.of(new PairMatrix.Row(POINT, "a", "b", 0, 90, 1),
                new PairMatrix.Row(POINT, "a", "c", 0, 80, 1), new PairMatrix.Row(POINT, "a", "c", 1, 120, 1)))
                .configurations().get(0)).satisfies(c -> {
                    assertThat(c.bestPair()).as("a retest does not move the best its pairs were judged by").isEqualTo("a/b");
                    assertThat(c.pairs()).extracting(PairMatrix.Cell::bad).containsExactly(false, false);
                    assertThat(c.pairs().get(1).relative()).isGreaterThan(1);
                });
    }

    @Test
    void aPairAbove2point1TimesTheBestLatencyIsBadAndConfigurationsAreJudgedApart() {
        Map<String, Object> other = Map.of("msg_size", 64);
        PairMatrix m = judge("latency_typical_us", List.of(new PairMatrix.Row(POINT, "a", "b", 10, 1),
                new PairMatrix.Row(POINT, "a", "c", 21.5, 1), new PairMatrix.Row(POINT, "b", "c", 21, 1),
                new PairMatrix.Row(other, "a", "b", 50, 1), new PairMatrix.Row(other, "a", "c", 5, 1)));
        assertThat(m.higherIsBetter()).isFalse();
        assertThat(m.configurations()).hasSize(2);
        assertThat(m.configurations().get(0).pairs()).extracting(PairMatrix.Cell::bad).containsExactly(false, true, false);
        assertThat(m.configurations().get(1).bestPair()).as("its own best").isEqualTo("a/c");
        assertThat(m.configurations().get(1).pairs()).extracting(PairMatrix.Cell::bad).containsExactly(true, false);
    }
}
