package org.qplab.controller.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A finished run's cycle-time distribution, its timeline and percentiles over time (from its intervals), and the
 * p99.9 curve, checked against every cycle (StoredExperiments traces each one).
 */
class RunAnalysisIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    void theHistogramCountsEveryStoredCycleInTheBinOfItsTime() throws Exception {
        long runId = firstRun(new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 51, 1.0, "analysis"));

        Map<String, Object> histogram = get("/api/runs/" + runId + "/histogram?binsPerOctave=8");
        assertThat(histogram).containsEntry("cycles", StoredExperiments.CYCLES).containsEntry("binsPerOctave", 8);
        List<Map<String, Object>> bins = list(histogram.get("bins"));
        assertThat(bins).hasSizeGreaterThan(10);
        long sum = 0;
        for (Map<String, Object> bin : bins) {
            long low = number(bin, "lowNs");
            long high = number(bin, "highNs");
            long count = number(bin, "count");
            assertThat(count).as("cycles in %d..%d ns", low, high).isEqualTo(jdbc.sql("""
                            SELECT count(*) FROM run_trace WHERE run_id = ? AND end_ns - start_ns >= ? AND end_ns - start_ns < ?""")
                    .params(runId, low, high).query(Long.class).single());
            assertThat((double) high / low).isLessThanOrEqualTo(1.125);
            sum += count;
        }
        assertThat(sum).isEqualTo(StoredExperiments.CYCLES);

        http().get().uri("/api/runs/{id}/histogram?binsPerOctave=3", runId).exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("binsPerOctave");
        http().get().uri("/api/runs/987654/histogram").exchange().expectStatus().isNotFound();
    }

    @Test
    void theTimelineSumsEachThreadsStoredCyclesPerSlot() throws Exception {
        long runId = firstRun(new StoredExperiments(http(), jdbc, ingest, outcomes).create("[65536]", 52, 1.0, "analysis"));

        Map<String, Object> timeline = get("/api/runs/" + runId + "/timeline?slots=10");
        long interval = number(timeline, "intervalNs");
        List<Map<String, Object>> points = list(timeline.get("points"));
        assertThat(points).hasSizeBetween(9, 10);
        long cycles = 0;
        for (Map<String, Object> point : points) {
            long slotStart = number(point, "lastEndNs") / interval * interval;
            Map<String, Object> stored = jdbc.sql("""
                            SELECT count(*) AS cycles, sum(bytes) AS bytes, min(start_ns) AS first FROM run_trace
                            WHERE run_id = ? AND thread = ? AND end_ns >= ? AND end_ns < ?""")
                    .params(runId, number(point, "thread"), slotStart, slotStart + interval).query().singleRow();
            assertThat(number(point, "cycles")).isEqualTo(((Number) stored.get("cycles")).longValue());
            assertThat(number(point, "bytes")).isEqualTo(((Number) stored.get("bytes")).longValue());
            assertThat(number(point, "firstStartNs")).isEqualTo(((Number) stored.get("first")).longValue());
            cycles += number(point, "cycles");
        }
        assertThat(cycles).isEqualTo(StoredExperiments.CYCLES);
        http().get().uri("/api/runs/{id}/timeline?slots=0", runId).exchange().expectStatus().isBadRequest();
    }

    @Test
    void percentilesOverTimeAreEachSlotsNearestRankOfEveryCycleInIt() throws Exception {
        long runId = firstRun(new StoredExperiments(http(), jdbc, ingest, outcomes).create("[65536]", 54, 1.0, "analysis"));

        Map<String, Object> timeline = get("/api/runs/" + runId + "/timeline?slots=5");
        List<Map<String, Object>> slots = list(timeline.get("percentiles"));
        assertThat(slots).hasSize(5);
        for (Map<String, Object> slot : slots) {
            List<Long> times = jdbc.sql("""
                            SELECT end_ns - start_ns FROM run_trace WHERE run_id = ? AND end_ns >= ? AND end_ns < ?
                            ORDER BY 1""").params(runId, number(slot, "fromNs"), number(slot, "toNs")).query(Long.class).list();
            assertThat(number(slot, "cycles")).isEqualTo(times.size());
            for (String[] p : new String[][] {{"medianCycleNs", "0.5"}, {"p99CycleNs", "0.99"}, {"p999CycleNs", "0.999"}}) {
                long exact = times.get((int) Math.ceil(Double.parseDouble(p[1]) * times.size()) - 1);
                // the histogram's bucket is at most 1/128 wide: its midpoint is within 0.4 % of the exact value
                assertThat((double) number(slot, p[0])).as("%s of %d..%d ns", p[0], number(slot, "fromNs"), number(slot, "toNs"))
                        .isCloseTo(exact, within(exact * 0.004 + 1));
            }
            assertThat(number(slot, "maxCycleNs")).isEqualTo(times.get(times.size() - 1));
        }
    }

    @Test
    void theIntervalsExportHoldsEveryIntervalWithItsHistogram() throws Exception {
        long runId = firstRun(new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 55, 1.0, "analysis"));

        List<Map<String, Object>> page = http().get().uri("/api/runs/{id}/intervals?limit=100000", runId).exchange()
                .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(page).hasSize(50); // 5,000 cycles 1 ms apart: 50 intervals of 100 ms
        assertThat(page.stream().mapToLong(i -> number(i, "cycles")).sum()).isEqualTo(StoredExperiments.CYCLES);
        Map<String, Object> tenth = page.get(9);
        assertThat(tenth).containsEntry("index", 9).containsEntry("fromNs", 900_000_000).containsEntry("toNs", 1_000_000_000);
        assertThat(list(tenth.get("buckets")).stream().mapToLong(b -> number(b, "count")).sum()).isEqualTo(number(tenth, "cycles"));
        String csv = http().get().uri("/api/runs/{id}/intervals.csv", runId).exchange().expectStatus().isOk()
                .expectHeader().contentType("text/csv;charset=UTF-8").expectBody(String.class).returnResult().getResponseBody();
        assertThat(csv.lines()).hasSize(51).first().asString().startsWith("thread,interval,span,from [ns],to [ns],cycles");
        assertThat(csv.lines().skip(10).findFirst().orElseThrow()).startsWith("0,9,1,900000000,1000000000,100,");
        http().get().uri("/api/runs/{id}/intervals?limit=0", runId).exchange().expectStatus().isBadRequest();
    }

    @Test
    void theP999CurveIsTheStoredSummarysP999() throws Exception {
        long experimentId = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096, 65536]", 53, 1.0, "analysis");

        Map<String, Object> curve = get("/api/experiments/" + experimentId + "/curve?x=msg_size&y=cycle_p999_ns&series=threads");
        List<Map<String, Object>> points = list(curve.get("points"));
        assertThat(points).hasSize(2);
        for (Map<String, Object> point : points) {
            double stored = jdbc.sql("""
                            SELECT (s.summary -> 'cycle_ns' ->> 'p999')::float8 FROM run r JOIN run_summary s ON s.run_id = r.id
                            WHERE r.experiment_id = ? AND (r.params ->> 'msg_size')::bigint = ?""")
                    .params(experimentId, ((Number) point.get("x")).longValue()).query(Double.class).single();
            assertThat(((Number) point.get("y")).doubleValue()).isCloseTo(stored, within(1e-6)).isGreaterThan(100_000);
        }
    }

    private long firstRun(long experimentId) {
        return jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(experimentId).query(Long.class).single();
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    private static long number(Map<String, Object> map, String key) {
        return ((Number) map.get(key)).longValue();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }
}
