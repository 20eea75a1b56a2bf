package org.qplab.controller.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * GET /api/alerts/deliveries?schedule=ID: of the webhook's deliveries, those about that schedule only (its stale
 * alerts, and the failed expectations and change points of the experiments its occurrences submitted), newest first
 * with their tries and last error; another schedule's are not among them, and an unknown schedule has none.
 */
class AlertDeliveriesIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    @SuppressWarnings("unchecked")
    void aSchedulesDeliveriesAreThoseOfItsStaleAlertsAndOfItsExperimentsAlerts() throws Exception {
        StoredExperiments stored = new StoredExperiments(http(), jdbc, ingest, outcomes);
        long mine = stored.create("[4096]", 11, 1.0, "deliveries-6.20", 2, 0.03);
        long theirs = stored.create("[4096]", 12, 1.0, "deliveries-6.20", 1, 0.03);
        long schedule = schedule("nightly deliveries", mine);
        long other = schedule("other deliveries", theirs);
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id").param(mine)
                .query(Long.class).list();
        long change = jdbc.sql("""
                        INSERT INTO change_point (fingerprint, metric, run_before, run_after, position, mean_before,
                            mean_after, change_percent, p_value, points_before, points_after, settled)
                        VALUES ('0123deliveries', 'bw_avg_bps', ?, ?, 1, 100, 80, -20, 1e-6, 1, 1, true) RETURNING id""")
                .params(runs.get(0), runs.get(1)).query(Long.class).single();
        deliver("stale:" + schedule + ":1700000000", "stale", "FAILED", 5, "HTTP 503", 4);
        deliver("expectation:" + mine, "expectation", "DELIVERED", 1, null, 3);
        deliver("change:" + change, "change", "RETRYING", 2, "ConnectException", 2);
        deliver("stale:" + other + ":1700000000", "stale", "DELIVERED", 1, null, 1);
        deliver("expectation:" + theirs, "expectation", "DELIVERED", 1, null, 0);

        assertThat(deliveries("?schedule=" + schedule)).extracting(d -> d.get("key") + " " + d.get("status") + " "
                + d.get("attempts") + " " + d.get("lastError")).containsExactly(
                "change:" + change + " RETRYING 2 ConnectException",
                "expectation:" + mine + " DELIVERED 1 null",
                "stale:" + schedule + ":1700000000 FAILED 5 HTTP 503");
        assertThat(deliveries("?schedule=" + other)).extracting(d -> d.get("key"))
                .containsExactly("expectation:" + theirs, "stale:" + other + ":1700000000");
        assertThat(deliveries("?schedule=" + (other + 1000))).isEmpty();
        assertThat(deliveries("")).extracting(d -> d.get("key")).contains("change:" + change, "expectation:" + theirs);

        // the neighbours sharing this database see no alert of this test's
        jdbc.sql("DELETE FROM change_point WHERE id = ?").param(change).update();
        jdbc.sql("DELETE FROM recurring WHERE id IN (?, ?)").params(schedule, other).update();
    }

    private long schedule(String name, long experiment) {
        long id = jdbc.sql("""
                        INSERT INTO recurring (name, matrix, content_type, every_hours, next_run_at, owner)
                        VALUES (?, '{}', 'application/json', 24, now() + interval '1 day', 'admin') RETURNING id""")
                .param(name).query(Long.class).single();
        jdbc.sql("INSERT INTO recurring_occurrence (recurring_id, due_at, outcome, experiment_id) VALUES (?, now(), "
                + "'SUBMITTED', ?)").params(id, experiment).update();
        return id;
    }

    /** A delivery as the webhook keeps it, made minutesAgo before now. */
    private void deliver(String key, String kind, String status, int attempts, String error, int minutesAgo) {
        jdbc.sql("""
                        INSERT INTO alert_delivery (key, kind, message, status, attempts, last_error, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, now() - make_interval(mins => ?))""")
                .params(key, kind, "about " + key, status, attempts, error, minutesAgo).update();
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> deliveries(String query) {
        return (List<Map<String, Object>>) (List<?>) http().get().uri("/api/alerts/deliveries" + query).exchange()
                .expectStatus().isOk().expectBodyList(Map.class).returnResult().getResponseBody();
    }
}
