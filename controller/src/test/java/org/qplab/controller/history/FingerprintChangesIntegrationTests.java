package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/** Change points on a fingerprint's history, over runs stored through the real ingest and run-end paths. */
class FingerprintChangesIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    /**
     * Twelve nightly experiments of one configuration, 3 runs each with a 3 % run-to-run scatter; from the seventh on
     * every cycle takes 25 % longer: bandwidth -20 %. The history shows one change, between the sixth experiment's
     * last run and the seventh's first.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aStepBetweenTwoNightlyExperimentsIsOneChangeBetweenTheirRuns() throws Exception {
        List<Long> experiments = new ArrayList<>();
        for (int night = 0; night < 12; night++) {
            experiments.add(new StoredExperiments(http(), jdbc, ingest, outcomes)
                    .create("[4096]", 360 + night, night < 6 ? 1.0 : 1.25, "changes-6.20", 3, 0.03));
        }
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ANY(?) ORDER BY finished_at, id")
                .param(experiments.toArray(Long[]::new)).query(Long.class).list();
        assertThat(runs).hasSize(36);
        String fingerprint = (String) get("/api/runs/" + runs.get(0)).get("fingerprint");
        long lastBefore = jdbc.sql("SELECT max(id) FROM run WHERE experiment_id = ?").param(experiments.get(5))
                .query(Long.class).single();
        long firstAfter = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(experiments.get(6))
                .query(Long.class).single();

        Map<String, Object> history = get("/api/fingerprints/" + fingerprint + "/history");
        assertThat(list(history.get("runs"))).hasSize(36);
        Map<String, Object> change = single(history.get("changes"));
        assertThat(change).containsEntry("index", 18).containsEntry("runBefore", (int) lastBefore)
                .containsEntry("runAfter", (int) firstAfter).containsEntry("pointsBefore", 18)
                .containsEntry("pointsAfter", 18).containsEntry("settled", false);
        assertThat(number(change, "changePercent")).isCloseTo(-20, within(3.0));
        assertThat(number(change, "meanAfter") / number(change, "meanBefore") - 1).isCloseTo(number(change, "changePercent") / 100,
                within(1e-9));
        assertThat(number(change, "pValue")).isLessThan(0.001);

        Map<String, Object> cycles = single(get("/api/fingerprints/" + fingerprint + "/history?metric=cycle_median_ns")
                .get("changes"));
        assertThat(cycles).containsEntry("index", 18);
        assertThat(number(cycles, "changePercent")).as("cycles take 25 %% longer").isCloseTo(25, within(4.0));
    }

    @Test
    void aFlatHistoryHasNoChange() throws Exception {
        long first = 0;
        for (int night = 0; night < 8; night++) {
            long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes)
                    .create("[4096]", 380 + night, 1.0, "flat-6.20", 3, 0.03);
            first = first == 0 ? experiment : first;
        }
        long run = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(first).query(Long.class).single();
        String fingerprint = (String) get("/api/runs/" + run).get("fingerprint");
        Map<String, Object> history = get("/api/fingerprints/" + fingerprint + "/history");
        assertThat(list(history.get("runs"))).hasSize(24);
        assertThat(list(history.get("changes"))).isEmpty();
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }

    private static double number(Map<String, Object> map, String key) {
        return ((Number) map.get(key)).doubleValue();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }

    private static Map<String, Object> single(Object value) {
        assertThat(list(value)).as("%s", value).hasSize(1);
        return list(value).get(0);
    }
}
