package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;

/** GET /api/experiments: filters, and the time left estimated from finished runs' durations. */
class ExperimentListIntegrationTests extends ControllerIntegrationTest {

    @Test
    void filtersByStatusAndByNameText() {
        long first = submit("filter-Alpha one");
        long second = submit("filter-alpha two");
        long other = submit("filter-beta");
        http().post().uri("/api/experiments/{id}/cancel", second).exchange().expectStatus().isOk();

        assertThat(ids("/api/experiments?name=FILTER-ALPHA")).containsExactly(second, first);
        assertThat(ids("/api/experiments?name=filter-&status=CANCELLED")).containsExactly(second);
        assertThat(ids("/api/experiments?name=filter-&status=queued,cancelled")).containsExactly(other, second, first);
        assertThat(ids("/api/experiments?name=filter-&status=QUEUED&status=RUNNING")).containsExactly(other, first);
        assertThat(ids("/api/experiments?name=no-such-experiment-name")).isEmpty();
        http().get().uri("/api/experiments?status=DONE").exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("status")
                .jsonPath("$.violations[0].message").value(m -> assertThat((String) m).contains("QUEUED").contains("got DONE"));
        List.of(first, other).forEach(id -> http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().isOk());
    }

    @Test
    void estimatesTimeLeftFromTheDurationsOfFinishedRuns() {
        long id = submit("time-left", "{\"threads\": [1, 2, 3, 4, 5]}");
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY idx").param(id).query(Long.class).list();
        assertThat(experiment(id)).doesNotContainKey("secondsLeft"); // nothing has finished: no estimate
        // two runs finished after 10 s and 20 s, one runs: 2 runs not ended × 15 s ÷ 1 running
        jdbc.sql("""
                UPDATE run SET status = 'FINISHED', started_at = now() - make_interval(secs => 60),
                    finished_at = now() - make_interval(secs => 60) + make_interval(secs => CASE WHEN idx = 0 THEN 10 ELSE 20 END)
                WHERE id = ANY(?)""").param(new Long[] {runs.get(0), runs.get(1)}).update();
        jdbc.sql("UPDATE run SET status = 'RUNNING', started_at = now() WHERE id = ?").param(runs.get(2)).update();
        jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ?").param(id).update();

        Map<String, Object> running = experiment(id);
        assertThat(running).containsEntry("runsDone", 2).containsEntry("runsRunning", 1).containsEntry("runsTotal", 5);
        assertThat(((Number) running.get("meanRunSeconds")).doubleValue()).isCloseTo(15, within(1e-6));
        assertThat(((Number) running.get("secondsLeft")).doubleValue()).isCloseTo(45, within(1e-6));
        assertThat(ids("/api/experiments?status=RUNNING&name=time-left")).containsExactly(id);

        jdbc.sql("UPDATE run SET status = 'RUNNING', started_at = now() WHERE id = ?").param(runs.get(3)).update();
        assertThat(((Number) experiment(id).get("secondsLeft")).doubleValue()).as("two running share the rest")
                .isCloseTo(22.5, within(1e-6));

        http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.secondsLeft").doesNotExist();
        jdbc.sql("UPDATE run SET status = 'CANCELLED' WHERE experiment_id = ? AND status = 'RUNNING'").param(id).update();
    }

    private long submit(String name) {
        return submit(name, null);
    }

    private long submit(String name, String dimensions) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"" + name + "\",\"base\":{\"msg_size\":64,\"iterations\":5}"
                        + (dimensions == null ? "" : ",\"dimensions\":" + dimensions) + "}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private Map<String, Object> experiment(long id) {
        return http().get().uri("/api/experiments/{id}", id).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    private List<Long> ids(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_ARRAY).returnResult()
                .getResponseBody().stream().map(e -> ((Number) e.get("id")).longValue()).toList();
    }
}
