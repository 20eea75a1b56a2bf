package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.controller.ingest.SampleIngest;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/** Fingerprints, baselines and comparisons of runs, over runs stored through the real ingest path. */
class BaselineIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private SampleIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    @SuppressWarnings("unchecked")
    void aRunMarkedAsBaselineFlagsASlowerRunOfTheSameFingerprintAsARegression() throws Exception {
        long first = firstRun(experiment("[4096]", 61, 1.0, "baseline-6.20"));
        long slower = firstRun(experiment("[4096]", 62, 1.10, "baseline-6.20"));
        long otherHost = firstRun(experiment("[4096]", 63, 1.0, "baseline-6.21"));
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
                .containsEntry("fingerprint", fingerprint);
        assertThat(((Number) point.get("cycleMedianChangePercent")).doubleValue()).isCloseTo(10.0, within(2.0));
        assertThat(((Number) point.get("pValue")).doubleValue()).isLessThan(0.001);

        Map<String, Object> againstOther = get("/api/compare/baselines?run=" + otherHost);
        assertThat(list(againstOther.get("points"))).isEmpty();
        assertThat(single(againstOther.get("withoutBaseline"))).containsEntry("runIds", List.of((int) otherHost));

        // marking the slower run replaces the first as the baseline of that fingerprint
        http().put().uri("/api/runs/{id}/baseline", slower).exchange().expectStatus().isOk();
        assertThat(run(first)).containsEntry("baseline", false);
        assertThat(single(get("/api/compare/baselines?run=" + first).get("points")))
                .containsEntry("baselineRunId", (int) slower).containsEntry("verdict", "improvement");
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
        assertThat(single(comparison.get("points"))).containsEntry("verdict", "no change");
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
