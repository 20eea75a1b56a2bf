package org.qplab.controller.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredNvmeofRuns;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The curves of an nvmeof experiment from stored fio summaries (the initiator's shape: msg_rate = IOPS,
 * bw_avg_bps, latency_us in µs): iops against iodepth, and latency percentiles against iops, a metric on the x
 * axis, where each point is one matrix point's repeats pooled at the mean of both.
 */
class NvmeofCurveIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    void latencyAgainstIopsPoolsEachMatrixPointsRepeatsAtTheirMeans() throws Exception {
        long id = storedExperiment();

        List<Map<String, Object>> p99 = points(id, "iops", "latency_p99_us", "rw");
        assertThat(p99).as("one point per matrix point (rw x iodepth), the 2 repeats pooled").hasSize(4);
        for (Map<String, Object> point : p99) {
            String rw = (String) point.get("series");
            int iodepth = iodepthAt(rw, ((Number) point.get("x")).doubleValue());
            assertThat(point.get("n")).as("%s", point).isEqualTo(2);
            assertThat(((Number) point.get("x")).doubleValue()).as("mean IOPS of %s", point)
                    .isCloseTo((iops(rw, iodepth, 0) + iops(rw, iodepth, 1)) / 2, within(1e-6));
            assertThat(((Number) point.get("y")).doubleValue()).as("mean p99 (µs) of %s", point)
                    .isCloseTo((p99(rw, iodepth, 0) + p99(rw, iodepth, 1)) / 2, within(1e-6));
            assertThat(((Number) point.get("min")).doubleValue()).isCloseTo(p99(rw, iodepth, 0), within(1e-6));
            assertThat(((Number) point.get("max")).doubleValue()).isCloseTo(p99(rw, iodepth, 1), within(1e-6));
        }
        assertThat(p99).extracting(p -> p.get("series")).containsExactly("randread", "randread", "randwrite", "randwrite");

        List<Map<String, Object>> byDepth = points(id, "iodepth", "iops", "rw");
        assertThat(byDepth).extracting(p -> ((Number) p.get("x")).intValue()).containsExactly(1, 16, 1, 16);
        assertThat(((Number) byDepth.get(1).get("y")).doubleValue()).as("randread at iodepth 16, I/Os per second")
                .isCloseTo((iops("randread", 16, 0) + iops("randread", 16, 1)) / 2, within(1e-6));

        Map<String, Object> refused = http().get().uri("/api/experiments/{id}/curve?x=nope&y=iops&series=rw", id)
                .exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(refused.toString()).contains("x").contains("a metric").contains("iops");
    }

    /** randread/randwrite x iodepth 1, 16 x 2 repeats, on transport local; each run's figures from iops/p99. */
    private long storedExperiment() throws Exception {
        long id = new StoredNvmeofRuns(http(), jdbc, ingest, outcomes).create("""
                name: nvmeof curves
                base: {provider: nvmeof, transport: local, runtime_ms: 1000}
                dimensions: {rw: [randread, randwrite], iodepth: [1, 16]}
                repeats: 2
                """);
        assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ? AND status = 'FINISHED'").param(id)
                .query(Long.class).single()).as("runs finished").isEqualTo(8);
        return id;
    }

    private static double iops(String rw, int iodepth, int repeat) {
        return StoredNvmeofRuns.iops("local", rw, 4096, iodepth, repeat);
    }

    private static double p99(String rw, int iodepth, int repeat) {
        return StoredNvmeofRuns.p99("local", rw, 4096, iodepth, repeat);
    }

    /** Which iodepth a pooled point of series rw is at, by its mean IOPS (the two differ by far). */
    private static int iodepthAt(String rw, double x) {
        return Math.abs(x - iops(rw, 1, 0)) < Math.abs(x - iops(rw, 16, 0)) ? 1 : 16;
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> points(long id, String x, String y, String series) {
        Map<String, Object> curve = http().get().uri("/api/experiments/{id}/curve?x={x}&y={y}&series={s}", id, x, y, series)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(curve).containsEntry("x", x).containsEntry("y", y);
        return (List<Map<String, Object>>) curve.get("points");
    }
}
