package org.qplab.controller.history;

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
import org.springframework.http.MediaType;

/** Fingerprints, baselines and comparisons of runs, over runs stored through the real ingest path. */
class BaselineIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    /**
     * One run against its fingerprint's baseline: a single run a side is judged against the spread of the
     * fingerprint's earlier runs (here five), and is inconclusive without them.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aRunIsJudgedAgainstItsFingerprintsBaselineWithTheFingerprintsHistoryAsNoise() throws Exception {
        long first = firstRun(experiment("[4096]", 61, 1.0, "baseline-6.20", 0.01));
        long elsewhere = firstRun(experiment("[4096]", 60, 1.25, "baseline-6.22", 0.01));
        assertThat(single(get("/api/compare/runs?baseline=" + first + "&candidate=" + elsewhere).get("points")))
                .as("one run a side, no history").containsEntry("verdict", "inconclusive: 1 run per side");
        for (int i = 0; i < 4; i++) {
            experiment("[4096]", 64 + i, 1.0, "baseline-6.20", 0.01);
        }
        long slower = firstRun(experiment("[4096]", 62, 1.25, "baseline-6.20", 0.01));
        long otherHost = firstRun(experiment("[4096]", 63, 1.0, "baseline-6.21", 0.01));
        String fingerprint = (String) run(first).get("fingerprint");
        assertThat(fingerprint).hasSize(64).isEqualTo(run(slower).get("fingerprint")).isNotEqualTo(run(otherHost).get("fingerprint"));
        assertThat(run(first)).containsEntry("baseline", false);

        Map<String, Object> marked = http().put().uri("/api/runs/{id}/baseline", first).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(marked).containsEntry("fingerprint", fingerprint).containsEntry("runId", (int) first);
        assertThat((Map<String, Object>) marked.get("host")).containsEntry("kernel", "baseline-6.20").containsEntry("cpus", 2);
        assertThat(run(first)).containsEntry("baseline", true);
        assertThat(http().get().uri("/api/baselines").exchange().expectStatus().isOk().expectBody(JSON_ARRAY).returnResult()
                .getResponseBody()).anySatisfy(b -> assertThat(b).containsEntry("runId", (int) first)
                        .containsEntry("fingerprint", fingerprint));
        Map<String, Object> identity = get("/api/runs/" + slower + "/fingerprint");
        assertThat(identity).containsEntry("fingerprint", fingerprint);
        assertThat((Map<String, Object>) identity.get("params")).containsEntry("msg_size", 4096);

        Map<String, Object> againstSlower = get("/api/compare/baselines?run=" + slower);
        Map<String, Object> point = single(againstSlower.get("points"));
        assertThat(point).containsEntry("verdict", "regression").containsEntry("baselineRunId", (int) first)
                .containsEntry("fingerprint", fingerprint).containsEntry("method", "history").containsEntry("noiseRuns", 5);
        assertThat(((Number) point.get("cycleMedianChangePercent")).doubleValue()).isCloseTo(25.0, within(4.0));
        assertThat(((Number) point.get("changePercent")).doubleValue()).isCloseTo(-20.0, within(3.0));
        assertThat(((Number) point.get("pValue")).doubleValue()).isLessThan(0.01);

        Map<String, Object> againstOther = get("/api/compare/baselines?run=" + otherHost);
        assertThat(list(againstOther.get("points"))).isEmpty();
        assertThat(single(againstOther.get("withoutBaseline"))).containsEntry("runIds", List.of((int) otherHost));

        // marking the slower run replaces the first as the baseline of that fingerprint; nothing ran before the first
        http().put().uri("/api/runs/{id}/baseline", slower).exchange().expectStatus().isOk();
        assertThat(run(first)).containsEntry("baseline", false);
        assertThat(single(get("/api/compare/baselines?run=" + first).get("points")))
                .containsEntry("baselineRunId", (int) slower).containsEntry("verdict", "inconclusive: 1 run per side");
        http().delete().uri("/api/runs/{id}/baseline", slower).exchange().expectStatus().isNoContent();
        http().delete().uri("/api/runs/{id}/baseline", slower).exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("run " + slower + " is not a baseline");
    }

    @Test
    @SuppressWarnings("unchecked")
    void twoRunsCompareWhateverTheirParametersAndTheDifferencesAreListed() throws Exception {
        long small = firstRun(experiment("[4096]", 71, 1.0, "runs-6.20"));
        long large = firstRun(experiment("[65536]", 72, 1.0, "runs-6.21"));

        Map<String, Object> comparison = get("/api/compare/runs?baseline=" + small + "&candidate=" + large);
        assertThat((Map<String, Object>) comparison.get("baseline")).containsEntry("runId", (int) small);
        assertThat(single(comparison.get("paramMismatches"))).containsEntry("param", "msg_size")
                .containsEntry("baseline", 4096).containsEntry("candidate", 65536);
        assertThat(single(comparison.get("hostMismatches"))).containsEntry("fact", "kernel");
        assertThat(single(comparison.get("points"))).containsEntry("verdict", "inconclusive: 1 run per side");
    }

    /** A fingerprint's runs over time across experiments, each experiment's median over its repeats beside them. */
    @Test
    @SuppressWarnings("unchecked")
    void aFingerprintsHistoryListsItsRunsOldestFirstAndEachExperimentsMedian() throws Exception {
        long before = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 81, 1.0, "history-6.20", 3, 0.05);
        long after = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 82, 1.5, "history-6.20", 3, 0.05);
        String fingerprint = (String) run(firstRun(before)).get("fingerprint");

        Map<String, Object> history = get("/api/fingerprints/" + fingerprint + "/history");
        assertThat(history).containsEntry("fingerprint", fingerprint).containsEntry("metric", "bw_avg_bps")
                .containsEntry("unit", "B/s").containsEntry("higherIsBetter", true);
        assertThat((Map<String, Object>) history.get("host")).containsEntry("kernel", "history-6.20");
        assertThat((List<Object>) history.get("metrics")).as("what its runs measured; an engine run's rate is no IOPS")
                .containsExactly("bw_avg_bps", "bw_peak_bps", "bw_sum_bps", "msg_rate", "cycle_median_ns", "cycle_p99_ns",
                        "cycle_p999_ns");
        List<Map<String, Object>> runs = list(history.get("runs"));
        List<Map<String, Object>> stored = jdbc.sql("""
                        SELECT r.id, r.experiment_id, s.bw_avg_bps FROM run r JOIN run_summary s ON s.run_id = r.id
                        WHERE r.experiment_id IN (?, ?) ORDER BY r.finished_at, r.id""")
                .params(before, after).query().listOfRows();
        assertThat(runs).extracting(r -> ((Number) r.get("runId")).longValue())
                .containsExactlyElementsOf(stored.stream().map(r -> (Long) r.get("id")).toList());
        for (int i = 0; i < runs.size(); i++) {
            assertThat(((Number) runs.get(i).get("value")).doubleValue()).isEqualTo((Double) stored.get(i).get("bw_avg_bps"));
        }
        List<Map<String, Object>> experiments = list(history.get("experiments"));
        assertThat(experiments).extracting(e -> ((Number) e.get("experimentId")).longValue()).containsExactly(before, after);
        for (Map<String, Object> experiment : experiments) {
            List<Double> values = stored.stream().filter(r -> r.get("experiment_id").equals(((Number) experiment.get("experimentId")).longValue()))
                    .map(r -> (Double) r.get("bw_avg_bps")).sorted().toList();
            assertThat(experiment).containsEntry("n", 3).containsEntry("median", values.get(1))
                    .containsEntry("min", values.get(0)).containsEntry("max", values.get(2));
        }
        assertThat(get("/api/fingerprints/" + fingerprint + "/history?metric=cycle_median_ns"))
                .containsEntry("unit", "ns").containsEntry("higherIsBetter", false);

        http().get().uri("/api/fingerprints/{f}/history", "0".repeat(64)).exchange().expectStatus().isNotFound();
        http().get().uri("/api/fingerprints/nope/history?metric=speed").exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("fingerprint")
                .jsonPath("$.violations[1].field").isEqualTo("metric");
    }

    @Test
    void onlyAFinishedRunCanBeABaseline() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"not-yet\",\"base\":{\"msg_size\":64,\"iterations\":5}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long experimentId = ((Number) created.get("id")).longValue();
        long queued = firstRun(experimentId);

        http().put().uri("/api/runs/{id}/baseline", queued).exchange().expectStatus().isEqualTo(409)
                .expectBody().jsonPath("$.error").isEqualTo("run " + queued + " is QUEUED: only a finished run can be a baseline");
        http().get().uri("/api/runs/{id}/fingerprint", queued).exchange().expectStatus().isEqualTo(409);
        http().get().uri("/api/compare/runs?baseline=" + queued + "&candidate=" + queued).exchange().expectStatus().isEqualTo(409);
        http().put().uri("/api/runs/987654/baseline").exchange().expectStatus().isNotFound();
        http().get().uri("/api/compare/baselines").exchange().expectStatus().isBadRequest();
        http().post().uri("/api/experiments/{id}/cancel", experimentId).exchange().expectStatus().isOk();
    }

    private long experiment(String sizes, long seed, double scale, String kernel) throws Exception {
        return new StoredExperiments(http(), jdbc, ingest, outcomes).create(sizes, seed, scale, kernel);
    }

    private long experiment(String sizes, long seed, double scale, String kernel, double runScatter) throws Exception {
        return new StoredExperiments(http(), jdbc, ingest, outcomes).create(sizes, seed, scale, kernel, 1, runScatter);
    }

    private long firstRun(long experimentId) {
        return jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(experimentId).query(Long.class).single();
    }

    private Map<String, Object> run(long id) {
        return get("/api/runs/" + id);
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }

    private static Map<String, Object> single(Object value) {
        assertThat(list(value)).hasSize(1);
        return list(value).get(0);
    }
}
