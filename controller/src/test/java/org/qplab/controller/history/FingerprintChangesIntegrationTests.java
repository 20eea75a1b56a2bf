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
import org.springframework.http.MediaType;

/**
 * Change points on a fingerprint's history, over runs stored through the real ingest and run-end paths: kept in
 * change_point run by run as they finish, and shown with the history.
 */
class FingerprintChangesIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    /**
     * Twelve nightly experiments of one configuration, 5 runs each with a 3 % run-to-run scatter; from the seventh on
     * every cycle takes 25 % longer: bandwidth -20 %. One change, between the sixth experiment's last run and the
     * seventh's first: in the history, and in change_point, open, as the runs finishing one by one left it.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aStepBetweenTwoNightlyExperimentsIsOneChangeBetweenTheirRuns() throws Exception {
        List<Long> experiments = new ArrayList<>();
        for (int night = 0; night < 12; night++) {
            experiments.add(new StoredExperiments(http(), jdbc, ingest, outcomes)
                    .create("[4096]", 360 + night, night < 6 ? 1.0 : 1.25, "changes-6.20", 5, 0.03));
        }
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ANY(?) ORDER BY finished_at, id")
                .param(experiments.toArray(Long[]::new)).query(Long.class).list();
        assertThat(runs).hasSize(60);
        String fingerprint = (String) get("/api/runs/" + runs.get(0)).get("fingerprint");
        long lastBefore = jdbc.sql("SELECT max(id) FROM run WHERE experiment_id = ?").param(experiments.get(5))
                .query(Long.class).single();
        long firstAfter = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(experiments.get(6))
                .query(Long.class).single();

        Map<String, Object> history = get("/api/fingerprints/" + fingerprint + "/history");
        assertThat(list(history.get("runs"))).hasSize(60);
        Map<String, Object> change = single(history.get("changes"));
        assertThat(change).as("found in the first window, runs 0-49: later runs cannot change it")
                .containsEntry("index", 30).containsEntry("runBefore", (int) lastBefore)
                .containsEntry("runAfter", (int) firstAfter).containsEntry("pointsBefore", 30)
                .containsEntry("pointsAfter", 20).containsEntry("settled", true);
        assertThat(number(change, "changePercent")).isCloseTo(-20, within(3.0));
        assertThat(number(change, "meanAfter") / number(change, "meanBefore") - 1).isCloseTo(number(change, "changePercent") / 100,
                within(1e-9));
        assertThat(number(change, "pValue")).isLessThan(0.001);

        Map<String, Object> cycles = single(get("/api/fingerprints/" + fingerprint + "/history?metric=cycle_median_ns")
                .get("changes"));
        assertThat(cycles).containsEntry("index", 30);
        assertThat(number(cycles, "changePercent")).as("cycles take 25 %% longer").isCloseTo(25, within(4.0));

        List<Map<String, Object>> stored = jdbc.sql("""
                        SELECT metric, run_before, run_after, position, change_percent, p_value, settled, status
                        FROM change_point WHERE fingerprint = ? ORDER BY metric""")
                .param(fingerprint).query().listOfRows();
        assertThat(stored).as("bandwidth and message rate; no latency measured").extracting(r -> r.get("metric"))
                .containsExactly("bw_avg_bps", "msg_rate");
        for (Map<String, Object> row : stored) {
            assertThat(row).containsEntry("run_before", lastBefore).containsEntry("run_after", firstAfter)
                    .containsEntry("position", 30).containsEntry("settled", true).containsEntry("status", "open");
        }
        assertThat((Double) stored.get(0).get("change_percent")).as("kept run by run, as the full scan found it")
                .isEqualTo(number(change, "changePercent"));
        assertThat((Double) stored.get(0).get("p_value")).isEqualTo(number(change, "pValue"));
        assertThat(jdbc.sql("SELECT length, last_run_id, resume_at FROM change_scan WHERE fingerprint = ? AND metric = ?")
                .params(fingerprint, "bw_avg_bps").query().singleRow())
                .as("the next run resumes at the window after the change").containsEntry("length", 60)
                .containsEntry("last_run_id", runs.get(59)).containsEntry("resume_at", 30);

        // the first night deleted, a thirteenth run: the series before where its scan resumed changed, so the
        // next run scans it again from the start (resumed at 30, it would keep the change there and see none)
        http().delete().uri("/api/experiments/{id}", experiments.get(0)).exchange().expectStatus().isNoContent();
        new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 372, 1.25, "changes-6.20", 5, 0.03);
        assertThat(jdbc.sql("SELECT position, run_before, run_after FROM change_point WHERE fingerprint = ? AND metric = ?")
                .params(fingerprint, "bw_avg_bps").query().singleRow())
                .containsEntry("position", 25).containsEntry("run_before", lastBefore).containsEntry("run_after", firstAfter);
        assertThat(single(get("/api/fingerprints/" + fingerprint + "/history").get("changes"))).containsEntry("index", 25);
    }

    /**
     * Triage: a change is dismissed (hidden, its series goes on) or confirmed (a new normal: its series restarts
     * there, so later runs at the new level find no change), each with who and why, a decided one not decided again.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aChangeIsDismissedOrConfirmedWithWhoAndWhyAndAConfirmedOneRestartsItsSeries() throws Exception {
        List<Long> experiments = new ArrayList<>();
        for (int night = 0; night < 10; night++) {
            experiments.add(new StoredExperiments(http(), jdbc, ingest, outcomes)
                    .create("[4096]", 400 + night, night < 5 ? 1.0 : 1.25, "triage-6.20", 5, 0.03));
        }
        long firstAfter = jdbc.sql("SELECT min(id) FROM run WHERE experiment_id = ?").param(experiments.get(5))
                .query(Long.class).single();
        List<Map<String, Object>> open = ((List<Map<String, Object>>) (List<?>) http().get().uri("/api/changes")
                .exchange().expectStatus().isOk().expectBodyList(Map.class).returnResult().getResponseBody()).stream()
                .filter(c -> ((Number) c.get("runAfter")).longValue() == firstAfter).toList();
        assertThat(open).extracting(c -> c.get("metric") + " " + c.get("status"))
                .containsExactlyInAnyOrder("bw_avg_bps open", "msg_rate open");
        long bw = id(open, "bw_avg_bps");
        long rate = id(open, "msg_rate");
        assertThat(open.get(0).get("experimentId")).isEqualTo(experiments.get(5).intValue());

        http().post().uri("/api/changes/{id}/confirm", bw).contentType(MediaType.APPLICATION_JSON).bodyValue("{}")
                .exchange().expectStatus().isBadRequest().expectBody(String.class)
                .value(body -> assertThat(body).contains("reason", "a new normal"));
        Map<String, Object> dismissed = http().post().uri("/api/changes/{id}/dismiss", rate)
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"reason\": \"the same step as bandwidth\"}")
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(dismissed).containsEntry("status", "dismissed").containsEntry("decidedBy", "admin")
                .containsEntry("reason", "the same step as bandwidth");
        Map<String, Object> confirmed = http().post().uri("/api/changes/{id}/confirm", bw)
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"reason\": \"new NIC firmware\"}")
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(confirmed).containsEntry("status", "confirmed").containsEntry("decidedBy", "admin")
                .containsEntry("reason", "new NIC firmware");
        assertThat(confirmed.get("decidedAt")).isNotNull();
        http().post().uri("/api/changes/{id}/dismiss", bw).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"reason\": \"changed my mind\"}").exchange().expectStatus().isEqualTo(409)
                .expectBody(String.class).value(body -> assertThat(body).contains("already confirmed by admin",
                        "new NIC firmware"));
        long audited = 0;
        for (int i = 0; i < 100 && audited < 4; i++) { // the audit log writes on the database scheduler, after the answer
            Thread.sleep(50);
            audited = jdbc.sql("SELECT count(*) FROM audit_event WHERE actor = 'admin' AND action LIKE 'POST /api/changes/%'")
                    .query(Long.class).single();
        }
        assertThat(audited).as("each decision audited, the refused ones too").isEqualTo(4);

        // open: neither any more; dismissed and confirmed each list theirs
        assertThat(ids("/api/changes")).doesNotContain(bw, rate);
        assertThat(ids("/api/changes?status=dismissed")).contains(rate).doesNotContain(bw);
        assertThat(ids("/api/changes?status=confirmed,dismissed")).contains(bw, rate);
        http().get().uri("/api/changes?status=gone").exchange().expectStatus().isBadRequest();

        // confirmed: the bandwidth series restarts at the change; three more nights at the new level find nothing,
        // while the rate series (dismissed, not restarted) still runs from the first night
        for (int night = 10; night < 13; night++) {
            new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 400 + night, 1.25, "triage-6.20", 5, 0.03);
        }
        String fingerprint = (String) confirmed.get("fingerprint");
        Map<String, Object> scan = jdbc.sql("SELECT origin_run_id, length FROM change_scan WHERE fingerprint = ? "
                + "AND metric = 'bw_avg_bps'").param(fingerprint).query().singleRow();
        assertThat(scan).containsEntry("origin_run_id", firstAfter).containsEntry("length", 40);
        assertThat(jdbc.sql("SELECT length FROM change_scan WHERE fingerprint = ? AND metric = 'msg_rate'")
                .param(fingerprint).query(Integer.class).single()).isEqualTo(65);
        assertThat(jdbc.sql("SELECT status FROM change_point WHERE fingerprint = ? AND metric = 'bw_avg_bps'")
                .param(fingerprint).query(String.class).list()).as("no new change in the restarted series")
                .containsExactly("confirmed");
        assertThat(jdbc.sql("SELECT status FROM change_point WHERE id = ?").param(rate).query(String.class).single())
                .isEqualTo("dismissed");
    }

    private static long id(List<Map<String, Object>> changes, String metric) {
        return changes.stream().filter(c -> c.get("metric").equals(metric)).map(c -> ((Number) c.get("id")).longValue())
                .findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private List<Long> ids(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBodyList(Map.class).returnResult()
                .getResponseBody().stream().map(c -> ((Number) ((Map<String, Object>) c).get("id")).longValue()).toList();
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
        assertThat(jdbc.sql("SELECT count(*) FROM change_point WHERE fingerprint = ?").param(fingerprint).query(Long.class)
                .single()).isZero();
        assertThat(jdbc.sql("SELECT length FROM change_scan WHERE fingerprint = ? AND metric = 'bw_avg_bps'")
                .param(fingerprint).query(Integer.class).single()).isEqualTo(24);
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
