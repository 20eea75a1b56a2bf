package org.qplab.controller.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.analysis.CurveRepository.Configuration;

/** A curve's points are configurations: what is neither on an axis nor pinned is split, never averaged. */
class CurvePointsTests {

    /** msg_size x qps_per_thread x threads, one configuration each, y = 1000 x qps + size / 64 + threads. */
    private static final List<Configuration> GRID = grid();

    @Test
    void splitsADimensionOnNeitherAxisIntoLinesOfItsOwn() {
        Curve curve = CurvePoints.assemble("msg_size", false, "bw_avg_bps", List.of("threads"), Map.of(), null, GRID);

        assertThat(curve.split()).containsExactly("qps_per_thread");
        assertThat(curve.pinned()).isEmpty();
        assertThat(curve.points()).hasSize(8).allSatisfy(p -> assertThat(p.y()).isEqualTo(
                1000.0 * ((Number) p.split().get("qps_per_thread")).doubleValue() + p.x() / 64 + (Long) p.series()));
        assertThat(curve.points()).extracting(p -> p.series() + " " + p.split() + " @ " + p.x()).containsExactly(
                "1 {qps_per_thread=1} @ 64.0", "1 {qps_per_thread=1} @ 16384.0",
                "1 {qps_per_thread=8} @ 64.0", "1 {qps_per_thread=8} @ 16384.0",
                "2 {qps_per_thread=1} @ 64.0", "2 {qps_per_thread=1} @ 16384.0",
                "2 {qps_per_thread=8} @ 64.0", "2 {qps_per_thread=8} @ 16384.0");
        assertThat(curve.dimensions()).extracting(d -> d.name() + "=" + d.values())
                .containsExactly("msg_size=[64, 16384]", "qps_per_thread=[1, 8]", "threads=[1, 2]");
    }

    @Test
    void aPinnedDimensionKeepsOneConfigurationPerPoint() {
        Curve curve = CurvePoints.assemble("msg_size", false, "bw_avg_bps", List.of("threads"),
                Map.of("qps_per_thread", "8"), null, GRID);

        assertThat(curve.split()).isEmpty();
        assertThat(curve.pinned()).containsEntry("qps_per_thread", 8);
        assertThat(curve.points()).hasSize(4).allSatisfy(p -> assertThat(p.split()).isNull())
                .extracting(Curve.Point::y).containsExactly(8002.0, 8257.0, 8003.0, 8258.0);
    }

    @Test
    void aMetricOnXMovesOneDimensionAlongEachLineAndSplitsTheRest() {
        Curve curve = CurvePoints.assemble("iops", true, "latency_p99_us", List.of("threads"), Map.of(), null, GRID);

        assertThat(curve.along()).as("the preferred of the varied ones").isEqualTo("qps_per_thread");
        assertThat(curve.split()).containsExactly("msg_size");
        assertThat(curve.points()).hasSize(8).allSatisfy(p -> assertThat(p.along()).isIn(1L, 8L, 1, 8));
        Curve along = CurvePoints.assemble("iops", true, "latency_p99_us", List.of("threads"), Map.of(), "msg_size", GRID);
        assertThat(along.split()).containsExactly("qps_per_thread");
    }

    @Test
    void pinsMatchNumbersByValue() {
        assertThat(CurvePoints.sameValue(4096, "4096.0")).isTrue();
        assertThat(CurvePoints.sameValue(4096L, "4K")).isFalse();
        assertThat(CurvePoints.sameValue("rc", "rc")).isTrue();
        assertThat(CurvePoints.sameValue(true, "true")).isTrue();
    }

    private static List<Configuration> grid() {
        List<Configuration> grid = new ArrayList<>();
        for (long size : new long[] {64, 16384}) {
            for (int qps : new int[] {1, 8}) {
                for (long threads : new long[] {1, 2}) {
                    Map<String, Object> params = new LinkedHashMap<>();
                    params.put("provider", "tcp");
                    params.put("msg_size", size);
                    params.put("qps_per_thread", qps);
                    params.put("threads", threads);
                    double y = 1000.0 * qps + size / 64.0 + threads;
                    grid.add(new Configuration(params, y, 3, y - 1, y + 1, y * 10));
                }
            }
        }
        return grid;
    }
}
