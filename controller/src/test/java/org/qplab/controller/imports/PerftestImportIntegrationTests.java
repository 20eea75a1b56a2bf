package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;

/**
 * perftest output captured in the lab goes in over REST and comes out of the history: an experiment
 * of finished runs whose curves are perftest's own numbers; a bad file is refused naming its line and
 * stores nothing.
 */
class PerftestImportIntegrationTests extends ControllerIntegrationTest {

    private Map<String, Object> upload(String fixture, String query) throws Exception {
        return http().post().uri("/api/import/perftest" + query).contentType(MediaType.TEXT_PLAIN)
                .bodyValue(PerftestOutputTests.fixture(fixture)).exchange().expectStatus().isCreated()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    /** size → the value in column (0-based) of the file's result lines, read independently of the importer. */
    private static Map<Long, Double> column(String text, int column, int columns) {
        Map<Long, Double> values = new TreeMap<>();
        for (String line : text.lines().toList()) {
            String[] v = line.trim().split("\\s+");
            if (v.length == columns && v[0].matches("\\d+") && v[1].matches("\\d+")) {
                values.put(Long.parseLong(v[0]), Double.parseDouble(v[column]));
            }
        }
        return values;
    }

    private List<Map<String, Object>> curve(long id, String y) {
        Map<String, Object> curve = http().get().uri("/api/experiments/{id}/curve?x=msg_size&y={y}&series=op", id, y).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> points = (List<Map<String, Object>>) curve.get("points");
        return points;
    }

    @Test
    void anAllSizesBandwidthRunBecomesAFinishedExperimentWithPerftestsNumbers() throws Exception {
        Map<String, Object> created = upload("ib_send_bw-a.txt", "?file=ib_send_bw-a.txt");
        long id = ((Number) created.get("id")).longValue();
        assertThat(created).containsEntry("tool", "ib_send_bw").containsEntry("runs", 23);

        http().get().uri("/api/experiments/{id}", id).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("FINISHED").jsonPath("$.runsTotal").isEqualTo(23)
                .jsonPath("$.runsDone").isEqualTo(23).jsonPath("$.matrix.imported.from").isEqualTo("perftest");

        Map<Long, Double> average = column(PerftestOutputTests.fixture("ib_send_bw-a.txt"), 3, 5); // BW average [MB/s]
        List<Map<String, Object>> points = curve(id, "bw_avg_bps");
        assertThat(points).hasSize(23);
        for (Map<String, Object> point : points) {
            long size = ((Number) point.get("x")).longValue();
            assertThat(((Number) point.get("y")).doubleValue()).as("BW average of %d B in bytes/s", size)
                    .isCloseTo(average.get(size) * 1024 * 1024, within(1e-6));
        }
        assertThat(curve(id, "cycle_median_ns")).as("a bandwidth test measured no cycle times").isEmpty();
    }

    @Test
    void aLatencyRunKeepsItsPercentilesAndNoBandwidth() throws Exception {
        long id = ((Number) upload("ib_read_lat.txt", "?name=read latency").get("id")).longValue();
        String text = PerftestOutputTests.fixture("ib_read_lat.txt");
        double typical = column(text, 4, 9).get(64L);
        double p99 = column(text, 7, 9).get(64L);

        assertThat(curve(id, "cycle_median_ns")).singleElement()
                .satisfies(p -> assertThat(((Number) p.get("y")).doubleValue()).isCloseTo(typical * 1000, within(1e-6)));
        assertThat(curve(id, "cycle_p99_ns")).singleElement()
                .satisfies(p -> assertThat(((Number) p.get("y")).doubleValue()).isCloseTo(p99 * 1000, within(1e-6)));
        assertThat(curve(id, "bw_avg_bps")).isEmpty();
        http().get().uri("/api/experiments/{id}", id).exchange().expectBody().jsonPath("$.name").isEqualTo("read latency");
    }

    @Test
    void twoImportsCompareByBandwidthAndSayWhyTheyAreNotTested() throws Exception {
        long before = ((Number) upload("ib_write_bw.txt", "").get("id")).longValue();
        long after = ((Number) upload("ib_write_bw.txt", "").get("id")).longValue();

        http().get().uri("/api/compare?baseline={a}&candidate={b}", before, after).exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.points[0].bwChangePercent").isEqualTo(0.0)
                .jsonPath("$.points[0].pValue").doesNotExist()
                .jsonPath("$.points[0].baseline.bwAvgBps").isNumber()
                .jsonPath("$.points[0].baseline.cycleMedianNs").doesNotExist()   // not measured: no zero
                .jsonPath("$.points[0].cycleMedianChangePercent").doesNotExist()
                .jsonPath("$.points[0].verdict").isEqualTo("untested: no per-cycle samples on the baseline side");
    }

    @Test
    void aTruncatedFileIsRefusedNamingTheLineAndNothingIsStored() throws Exception {
        List<String> lines = PerftestOutputTests.fixture("ib_send_bw-a.txt").lines().toList();
        int last = lines.indexOf(lines.stream().filter(l -> l.trim().startsWith("1024 ")).findFirst().orElseThrow());
        long experiments = count("experiment");

        http().post().uri("/api/import/perftest").contentType(MediaType.TEXT_PLAIN)
                .bodyValue(String.join("\n", lines.subList(0, last + 1))).exchange().expectStatus().isBadRequest()
                .expectBody()
                .jsonPath("$.error").isEqualTo("invalid perftest output")
                .jsonPath("$.violations[0].field").isEqualTo("line " + (last + 1))
                .jsonPath("$.violations[0].message").value(m -> assertThat((String) m).contains("truncated"));
        http().post().uri("/api/import/perftest").contentType(MediaType.TEXT_PLAIN).exchange().expectStatus().isBadRequest();
        assertThat(count("experiment")).isEqualTo(experiments);
    }
}
