package org.qplab.controller.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.OwnDatabase;
import org.qplab.controller.PrometheusScrape;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Alerts: an open change point, a run that failed its expect rules and a schedule with nothing finished for twice its
 * period are each listed by GET /api/alerts and counted in the Prometheus scrape; a triaged change and a schedule
 * that produced again are not. Its own database: the counts are exact.
 */
@OwnDatabase
class AlertsIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    @SuppressWarnings("unchecked")
    void anOpenChangeAFailedExpectationAndAStaleScheduleAreAlertedAndScraped() throws Exception {
        String none = awaitScrape(s -> metric(s, "qplab_open_changes") == 0);
        assertThat(metric(none, "qplab_schedule_stale")).isZero();
        assertThat(metric(none, "qplab_expectation_failures_total")).isZero();
        assertThat((List<?>) alerts().get("alerts")).isEmpty();

        long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 7, 1.0, "alerts-6.20", 2, 0.03);
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id").param(experiment)
                .query(Long.class).list();
        long change = jdbc.sql("""
                        INSERT INTO change_point (fingerprint, metric, run_before, run_after, position, mean_before,
                            mean_after, change_percent, p_value, points_before, points_after, settled)
                        VALUES ('f00dfeed00112233', 'bw_avg_bps', ?, ?, 1, 100, 80, -20, 1e-6, 1, 1, true) RETURNING id""")
                .params(runs.get(0), runs.get(1)).query(Long.class).single();
        jdbc.sql("INSERT INTO run_expectation (run_id, verdict, rules) VALUES (?, 'FAIL', '[]')").param(runs.get(1)).update();
        long schedule = jdbc.sql("""
                        INSERT INTO recurring (name, matrix, content_type, every_hours, next_run_at, owner, created_at)
                        VALUES ('nightly', '{}', 'application/json', 1, now() + interval '1 hour', 'admin',
                                now() - interval '3 hours') RETURNING id""").query(Long.class).single();

        String scrape = awaitScrape(s -> metric(s, "qplab_open_changes") == 1 && metric(s, "qplab_schedule_stale") == 1);
        assertThat(metric(scrape, "qplab_expectation_failures_total")).isEqualTo(1);
        Map<String, Object> now = alerts();
        assertThat(now).containsEntry("openChanges", 1).containsEntry("expectationFailures", 1)
                .containsEntry("staleSchedules", 1);
        assertThat((List<Map<String, Object>>) now.get("alerts")).extracting(a -> a.get("kind") + ": " + a.get("message")
                + " -> " + a.get("link")).containsExactly(
                "change: bw_avg_bps moved -20.0 % (fingerprint f00dfeed0011, from experiment #" + experiment + " on) "
                        + "-> #/changes",
                "expectation: experiment #" + experiment + " compare: 1 run failed its expect rules -> #/experiments/"
                        + experiment,
                "stale: schedule #" + schedule + " nightly (every 1 hour) has produced no finished experiment for longer "
                        + "than 2 h since it was created -> #/schedules/" + schedule);

        // dismissed, the change is no alert; a finished experiment of the schedule's makes it fresh again
        jdbc.sql("UPDATE change_point SET status = 'dismissed', decided_by = 'admin', reason = 'test' WHERE id = ?")
                .param(change).update();
        jdbc.sql("INSERT INTO recurring_occurrence (recurring_id, due_at, outcome, experiment_id) VALUES (?, now(), "
                + "'SUBMITTED', ?)").params(schedule, experiment).update();
        awaitScrape(s -> metric(s, "qplab_open_changes") == 0 && metric(s, "qplab_schedule_stale") == 0);
        assertThat((List<Map<String, Object>>) alerts().get("alerts")).extracting(a -> a.get("kind"))
                .containsExactly("expectation");
    }

    private Map<String, Object> alerts() {
        return http().get().uri("/api/alerts").exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }

    private String awaitScrape(Predicate<String> until) throws InterruptedException {
        return PrometheusScrape.await(http(), until);
    }

    private static double metric(String scrape, String name) {
        return PrometheusScrape.metric(scrape, name);
    }
}
