package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.imports.PerftestFixtures.Fixture;
import org.qplab.controller.imports.PerftestFixtures.Result;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * perftest output captured in the lab goes in over REST and comes out of the history: an experiment
 * of finished runs whose curves are perftest's own numbers; a bad file is refused naming its line, the
 * output of a perftest run that failed is refused quoting perftest, and neither stores anything.
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

    /** JSON integers as longs, so that parameters read back compare with the file's. */
    private static Map<String, Object> longs(Object map) {
        Map<String, Object> out = new LinkedHashMap<>();
        ((Map<?, ?>) map).forEach((k, v) -> out.put((String) k, v instanceof Integer || v instanceof Long ? ((Number) v).longValue() : v));
        return out;
    }

    /** size → y of the experiment's curve. */
    private static Map<Long, Double> curveBySize(WebTestClient http, long id, String y) {
        Map<String, Object> curve = http.get().uri("/api/experiments/{id}/curve?x=msg_size&y={y}&series=op", id, y).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        Map<Long, Double> bySize = new TreeMap<>();
        ((List<?>) curve.get("points")).forEach(p -> bySize.put(((Number) ((Map<?, ?>) p).get("x")).longValue(),
                ((Number) ((Map<?, ?>) p).get("y")).doubleValue()));
        return bySize;
    }

    /**
     * What the import stored of experiment id, against the file's results read from the file: one finished run
     * per result line, in order, with its size, iterations, tool and the header's parameters; every value of the
     * line in its summary's perftest block as perftest printed it; the engine's summary keys (bw_avg_bps, msg_rate,
     * cycle_ns, latency_us) and BW average and peak, message rate, median and p99 latency in the history's units
     * (bytes/s, messages/s, ns).
     */
    static void assertStoredAsTheFileSays(WebTestClient http, long id, List<Result> expected, Map<String, Object> header,
                                          double bandwidthUnit, String tool) {
        List<Map<String, Object>> runs = http.get().uri("/api/experiments/{id}/runs", id).exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(runs).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            Result line = expected.get(i);
            Map<String, Object> run = runs.get(i);
            assertThat(run.get("status")).isEqualTo("FINISHED");
            assertThat(longs(run.get("params"))).as("%d B", line.bytes()).containsAllEntriesOf(header)
                    .containsEntry("tool", tool).containsEntry("msg_size", line.bytes()).containsEntry("iterations", line.iterations());
            Map<?, ?> summary = (Map<?, ?>) run.get("summary");
            Map<?, ?> printed = (Map<?, ?>) ((Map<?, ?>) summary.get("perftest")).get("results");
            line.values().forEach((name, value) -> assertThat(((Number) printed.get(name)).doubleValue())
                    .as("%s of %d B, as perftest printed it", name, line.bytes()).isEqualTo(value));
            assertThat(((Map<?, ?>) summary.get("perftest")).get("tool")).isEqualTo(tool);
            // the engine's keys, in its units, as a run of qplab's carries them
            assertThat(longs(summary)).containsEntry("msg_size", line.bytes()).containsEntry("cycles", line.iterations())
                    .containsEntry("errors", 0L).containsEntry("mode", tool.endsWith("_lat") ? "latency" : "bw");
            if (tool.endsWith("_lat")) {
                Map<?, ?> latency = (Map<?, ?>) summary.get("latency_us");
                assertThat(((Number) latency.get("typical")).doubleValue()).isEqualTo(line.values().get("t_typical_us"));
                assertThat(((Number) ((Map<?, ?>) summary.get("cycle_ns")).get("median")).doubleValue())
                        .isCloseTo(line.values().get("t_typical_us") * 1e3, within(1e-9));
                assertThat(longs(summary)).doesNotContainKeys("bw_avg_bps", "bw_peak_bps", "msg_rate");
            } else {
                assertThat(((Number) summary.get("bw_avg_bps")).doubleValue())
                        .isEqualTo(line.values().get("bw_average") * bandwidthUnit);
                assertThat(((Number) summary.get("msg_rate")).doubleValue())
                        .isEqualTo(line.values().get("msg_rate_mpps") * 1e6);
                assertThat(longs(summary)).doesNotContainKeys("cycle_ns", "latency_us");
            }
        }
        Map<String, Double> unit = Map.of("bw_avg_bps", bandwidthUnit, "bw_peak_bps", bandwidthUnit, "msg_rate", 1e6,
                "cycle_median_ns", 1e3, "cycle_p99_ns", 1e3);
        Map<String, String> column = Map.of("bw_avg_bps", "bw_average", "bw_peak_bps", "bw_peak", "msg_rate", "msg_rate_mpps",
                "cycle_median_ns", "t_typical_us", "cycle_p99_ns", "t_p99_us");
        column.forEach((y, name) -> {
            Map<Long, Double> expectedCurve = new TreeMap<>();
            expected.stream().filter(r -> r.values().containsKey(name))
                    .forEach(r -> expectedCurve.put(r.bytes(), r.values().get(name) * unit.get(y)));
            Map<Long, Double> stored = curveBySize(http, id, y);
            assertThat(stored.keySet()).as("sizes with a %s", y).isEqualTo(expectedCurve.keySet());
            expectedCurve.forEach((size, value) -> assertThat(stored.get(size)).as("%s of %d B", y, size)
                    .isCloseTo(value, within(1e-9 + value * 1e-12)));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#reportedResults")
    void everyCapturedRunImportsWithTheNumbersAndParametersItsFileShows(Fixture fixture) throws Exception {
        String text = fixture.text();
        List<Result> expected = PerftestFixtures.results(text);
        Map<String, Object> created = upload(fixture.name() + ".txt", "?file=" + fixture.name() + ".txt");
        assertThat(created).containsEntry("tool", fixture.tool()).containsEntry("runs", expected.size());
        long id = ((Number) created.get("id")).longValue();

        http().get().uri("/api/experiments/{id}", id).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("FINISHED").jsonPath("$.runsDone").isEqualTo(expected.size())
                .jsonPath("$.matrix.imported.format").isEqualTo("text");
        assertStoredAsTheFileSays(http(), id, expected, PerftestFixtures.headerParams(text), PerftestFixtures.bandwidthUnit(text),
                fixture.tool());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.qplab.controller.imports.PerftestFixtures#failed")
    void everyCapturedRunThatFailedIsRefusedQuotingPerftestAndNothingIsStored(Fixture fixture) throws IOException {
        String text = fixture.text();
        List<String> lines = text.lines().toList();
        int quoted = 1 + lines.stream().map(String::strip).toList().indexOf(fixture.quote());
        assertThat(quoted).as("'%s' is a line of %s", fixture.quote(), fixture.name()).isPositive();
        long experiments = count("experiment");
        long runs = count("run");

        for (MediaType type : List.of(MediaType.TEXT_PLAIN, MediaType.APPLICATION_JSON)) {
            Map<String, Object> refused = http().post().uri("/api/import/perftest?file=" + fixture.name() + ".txt").contentType(type)
                    .bodyValue(text).exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult()
                    .getResponseBody();
            assertThat(refused).containsEntry("error", "invalid perftest output");
            @SuppressWarnings("unchecked")
            List<Map<String, String>> violations = (List<Map<String, String>>) refused.get("violations");
            assertThat(violations.get(0)).as("sent as %s", type).containsEntry("field", "line " + quoted);
            if (fixture.outcome().equals("failed")) {
                assertThat(violations.get(0).get("message")).isEqualTo("perftest failed: \"" + fixture.quote() + "\"");
                assertThat(violations).as("each quotes its line as perftest printed it").allSatisfy(v -> {
                    int line = Integer.parseInt(v.get("field").substring("line ".length()));
                    assertThat(v.get("message")).isEqualTo("perftest failed: \"" + lines.get(line - 1).strip() + "\"");
                });
            } else {
                assertThat(violations).singleElement().satisfies(v -> assertThat(v.get("message"))
                        .startsWith("perftest printed no result; its last line: \"" + fixture.quote() + "\""));
            }
        }
        assertThat(count("experiment")).isEqualTo(experiments);
        assertThat(count("run")).isEqualTo(runs);
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
        assertThat(curve(id, "latency_typical_us")).as("nor latencies").isEmpty();
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
        // the latency curves in microseconds, perftest's own t_typical and 99% percentile
        assertThat(curve(id, "latency_typical_us")).singleElement()
                .satisfies(p -> assertThat(((Number) p.get("y")).doubleValue()).isCloseTo(typical, within(1e-9)));
        assertThat(curve(id, "latency_p99_us")).singleElement()
                .satisfies(p -> assertThat(((Number) p.get("y")).doubleValue()).isCloseTo(p99, within(1e-9)));
        http().get().uri("/api/experiments/{id}", id).exchange().expectBody().jsonPath("$.name").isEqualTo("read latency");
    }

    /**
     * Two imports of one file compare on perftest's bandwidth and message rate, over their one run a side: against
     * the history of their fingerprint when other imports of the file came before (its spread: none), else
     * inconclusive. What perftest did not measure (cycle times) is left out, not zero.
     */
    @Test
    void twoImportsCompareByBandwidthAndLeaveOutWhatPerftestDidNotMeasure() throws Exception {
        long before = ((Number) upload("ib_write_bw.txt", "").get("id")).longValue();
        long after = ((Number) upload("ib_write_bw.txt", "").get("id")).longValue();
        long earlier = jdbc.sql("""
                        SELECT count(*) FROM run r, run a WHERE a.experiment_id = ? AND r.params = a.params
                          AND r.host_facts IS NULL AND r.status = 'FINISHED' AND r.id <> a.id""")
                .param(after).query(Long.class).single();

        http().get().uri("/api/compare?baseline={a}&candidate={b}", before, after).exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.points[0].metric").isEqualTo("bw_avg_bps")
                .jsonPath("$.points[0].bwChangePercent").isEqualTo(0.0)
                .jsonPath("$.points[0].judgments[*].metric").isEqualTo(List.of("bw_avg_bps", "msg_rate"))
                .jsonPath("$.points[0].baseline.bwAvgBps").isNumber()
                .jsonPath("$.points[0].baseline.cycleMedianNs").doesNotExist()   // not measured: no zero
                .jsonPath("$.points[0].baseline.shape").doesNotExist()
                .jsonPath("$.points[0].cycleMedianChangePercent").doesNotExist()
                .jsonPath("$.points[0].verdict").isEqualTo(earlier >= 5 ? "no change" : "inconclusive: 1 run per side");
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
