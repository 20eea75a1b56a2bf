package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/** DELETE /api/experiments/{id}: an ended experiment goes with every row of its runs; a live one stays. */
class ExperimentDeleteIntegrationTests extends ControllerIntegrationTest {

    /** Every table holding rows of a run (see db/migration). */
    private static final List<String> RUN_TABLES = List.of("run", "run_trace", "run_interval", "run_frame", "run_summary",
            "run_histogram", "run_baseline");

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    void deletesAnEndedExperimentWithEveryRowOfItsRunsAndNothingElse() throws Exception {
        StoredExperiments stored = new StoredExperiments(http(), jdbc, ingest, outcomes);
        long doomed = stored.create("[64, 4096]", 81, 1.0, "delete");
        long kept = stored.create("[64, 4096]", 82, 1.0, "delete");
        List<Long> doomedRuns = runs(doomed);
        List<Long> keptRuns = runs(kept);
        // a failed try replaced by a retry: run's own foreign keys (superseded_by, retry_of) point within the experiment
        long failedTry = jdbc.sql("""
                        INSERT INTO run (experiment_id, idx, params, status, attempt, superseded_by, error)
                        SELECT experiment_id, idx, params, 'FAILED', 1, id, 'agent lost' FROM run WHERE id = ? RETURNING id""")
                .param(doomedRuns.get(0)).query(Long.class).single();
        jdbc.sql("UPDATE run SET retry_of = ?, attempt = 2 WHERE id = ?").params(failedTry, doomedRuns.get(0)).update();
        doomedRuns = runs(doomed);
        for (long run : doomedRuns.subList(0, 2)) {
            http().get().uri("/api/runs/{id}/histogram", run).exchange().expectStatus().isOk(); // made current
        }
        http().get().uri("/api/runs/{id}/histogram", keptRuns.get(0)).exchange().expectStatus().isOk();
        http().put().uri("/api/runs/{id}/baseline", doomedRuns.get(0)).exchange().expectStatus().isOk();
        http().put().uri("/api/runs/{id}/baseline", keptRuns.get(1)).exchange().expectStatus().isOk();

        Map<String, Long> doomedBefore = rows(doomedRuns);
        Map<String, Long> keptBefore = rows(keptRuns);
        assertThat(doomedBefore).as("rows of the experiment to delete, by table").allSatisfy((table, n) -> assertThat(n)
                .as(table).isPositive());
        long experimentsBefore = count("experiment");

        http().delete().uri("/api/experiments/{id}", doomed).exchange().expectStatus().isNoContent().expectBody().isEmpty();

        assertThat(rows(doomedRuns)).as("rows of the deleted experiment").allSatisfy((table, n) -> assertThat(n)
                .as(table).isZero());
        assertThat(rows(keptRuns)).as("rows of the other experiment").isEqualTo(keptBefore);
        assertThat(count("experiment")).isEqualTo(experimentsBefore - 1);
        http().get().uri("/api/experiments/{id}", doomed).exchange().expectStatus().isNotFound();
        http().get().uri("/api/runs/{id}", doomedRuns.get(0)).exchange().expectStatus().isNotFound();
        assertThat(http().get().uri("/api/experiments").exchange().expectStatus().isOk().expectBody(JSON_ARRAY)
                .returnResult().getResponseBody()).extracting(e -> ((Number) e.get("id")).longValue())
                .contains(kept).doesNotContain(doomed);
        assertThat(http().get().uri("/api/baselines").exchange().expectStatus().isOk().expectBody(JSON_ARRAY)
                .returnResult().getResponseBody()).extracting(b -> ((Number) b.get("runId")).longValue())
                .contains(keptRuns.get(1)).doesNotContain(doomedRuns.get(0));

        http().delete().uri("/api/experiments/{id}", doomed).exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("no experiment " + doomed);
    }

    @Test
    void aQueuedOrRunningExperimentIsNotDeletedUntilItHasStopped() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"delete-live\",\"base\":{\"iterations\":1},\"dimensions\":{\"msg_size\":[64,128]}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        List<Long> runs = runs(id);

        http().delete().uri("/api/experiments/{id}", id).exchange().expectStatus().isEqualTo(409).expectBody()
                .jsonPath("$.error").isEqualTo("experiment " + id + " is QUEUED: cancel it first (POST /api/experiments/"
                        + id + "/cancel), then delete it");

        jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ?").param(id).update();
        jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'nobody', started_at = now() WHERE id = ?")
                .param(runs.get(0)).update();
        http().delete().uri("/api/experiments/{id}", id).exchange().expectStatus().isEqualTo(409).expectBody()
                .jsonPath("$.error").isEqualTo("experiment " + id + " is RUNNING: cancel it first (POST /api/experiments/"
                        + id + "/cancel), then delete it");

        http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().isOk();
        http().delete().uri("/api/experiments/{id}", id).exchange().expectStatus().isEqualTo(409).expectBody()
                .jsonPath("$.error").isEqualTo("experiment " + id + " is CANCELLED but 1 of its runs are still running:"
                        + " delete it once their agents have stopped them");
        assertThat(runs(id)).as("runs kept while it was refused").isEqualTo(runs);

        jdbc.sql("UPDATE run SET status = 'CANCELLED', finished_at = now() WHERE id = ?").param(runs.get(0)).update();
        http().delete().uri("/api/experiments/{id}", id).exchange().expectStatus().isNoContent();
        assertThat(runs(id)).isEmpty();
        http().delete().uri("/api/experiments/987654").exchange().expectStatus().isNotFound();
    }

    private List<Long> runs(long experimentId) {
        return jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY id").param(experimentId).query(Long.class).list();
    }

    /** Rows per table that belong to these runs (run: the runs themselves). */
    private Map<String, Long> rows(List<Long> runs) {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (String table : RUN_TABLES) {
            String column = table.equals("run") ? "id" : "run_id";
            rows.put(table, jdbc.sql("SELECT count(*) FROM " + table + " WHERE " + column + " = ANY(?)")
                    .param(runs.toArray(Long[]::new)).query(Long.class).single());
        }
        return rows;
    }
}
