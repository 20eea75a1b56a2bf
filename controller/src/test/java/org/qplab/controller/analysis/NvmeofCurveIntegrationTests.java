package org.qplab.controller.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.TestIntervals;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.controller.ingest.SampleIngest;
import org.qplab.protocol.SampleFrame;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/**
 * The curves of an nvmeof experiment from stored fio summaries (the initiator's shape: msg_rate = IOPS,
 * bw_avg_bps, latency_us in µs): iops against iodepth, and latency percentiles against iops, a metric on the x
 * axis, where each point is one matrix point's repeats pooled at the mean of both.
 */
class NvmeofCurveIntegrationTests extends ControllerIntegrationTest {

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");
    private static final long IOS = 400;
    private static final long BS = 4096;

    @Autowired
    private SampleIngest ingest;

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
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(YAML).bodyValue("""
                        name: nvmeof curves
                        base: {provider: nvmeof, transport: local, runtime_ms: 1000}
                        dimensions: {rw: [randread, randwrite], iodepth: [1, 16]}
                        repeats: 2
                        """)
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        List<Map<String, Object>> runs = jdbc.sql("""
                        UPDATE run SET status = 'RUNNING', agent_id = 'imitation', started_at = now()
                        WHERE experiment_id = ? RETURNING id, repeat, params->>'rw' AS rw, (params->>'iodepth')::int AS iodepth""")
                .param(id).query().listOfRows();
        assertThat(runs).hasSize(8);
        for (Map<String, Object> run : runs) {
            long runId = ((Number) run.get("id")).longValue();
            String rw = (String) run.get("rw");
            int iodepth = ((Number) run.get("iodepth")).intValue();
            int repeat = ((Number) run.get("repeat")).intValue();
            double iops = iops(rw, iodepth, repeat);
            List<TestIntervals.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < IOS; i++) {
                cycles.add(new TestIntervals.Cycle(0, i * 1_000_000L, i * 1_000_000L + 50_000));
            }
            ingest.store(SampleFrame.of(runId, 0, List.of(), TestIntervals.of(cycles, 100_000_000L, BS, 1)));
            outcomes.finished(runId, "imitation", Map.ofEntries(Map.entry("provider", "nvmeof"),
                    Map.entry("transport", "local"), Map.entry("side", "local"), Map.entry("cycles", IOS),
                    Map.entry("messages", IOS), Map.entry("bytes", IOS * BS), Map.entry("errors", 0),
                    Map.entry("dropped", 0), Map.entry("duration_ns", (long) (IOS / iops * 1e9)),
                    Map.entry("bw_avg_bps", iops * BS), Map.entry("bw_peak_bps", iops * BS), Map.entry("msg_rate", iops),
                    Map.entry("iops", iops), Map.entry("cycle_ns", Map.of("median", 50_000, "p99", 50_000)),
                    Map.entry("latency_us", Map.of("typical", p99(rw, iodepth, repeat) / 2, "p99",
                            p99(rw, iodepth, repeat), "p999", p99(rw, iodepth, repeat) * 2))), 1);
        }
        assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ? AND status = 'FINISHED'").param(id)
                .query(Long.class).single()).as("runs finished").isEqualTo(8);
        return id;
    }

    private static double iops(String rw, int iodepth, int repeat) {
        return (rw.equals("randread") ? 1000 : 700) * Math.sqrt(iodepth) + 10 * repeat;
    }

    private static double p99(String rw, int iodepth, int repeat) {
        return (rw.equals("randread") ? 900 : 1300) * iodepth + 5 * repeat;
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
